/// An envelope that rotation or erase could not open: altered, truncated, not a regular file,
/// or under a key that no longer exists. Reported by name with the error, never a value.
public struct DamagedSecret: Sendable, Equatable {
    public let name: String
    public let error: VaultError
}
