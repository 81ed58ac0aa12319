/// What `Vault.erase` did (VLT-6, ENR-10).
public struct EraseReport: Sendable, Equatable {
    /// Envelopes removed by this call (names already absent are not counted).
    public let erased: Int
    /// The generation every remaining secret is now sealed under.
    public let newKeyID: String
    /// Remaining secrets moved to the new generation (the device id among them).
    public let rewritten: Int
    /// Older generations destroyed: key files and sealed blobs overwritten, then unlinked.
    public let keysDestroyed: Int
    /// Envelopes that could not be opened and so could not be moved; their keys are destroyed
    /// all the same (the erase must not be blocked by one bad file).
    public let damaged: [DamagedSecret]
}
