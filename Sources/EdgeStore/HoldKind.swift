/// What kind of hold keeps a credential's entries (issue #28 item 2), declared by whoever holds
/// them and stored with the hold, so every reader (`edge sync release`, `edge status`, the kiosk,
/// metrics) treats it alike without knowing the capability that made it.
///
/// The sync core knows only `.credential` (the backend rejected the token). A capability supplies
/// its own (enrollment's Study Start wait, ENR-13), named by it; the store and the sender never
/// name them.
///
/// Decision: the declaration travels with the row rather than living in a registry, so a command
/// that opens only the database (`edge sync release`, `edge status` while the agent is down)
/// knows it, and an export carries it to the station that imports it.
public struct HoldKind: Sendable, Hashable {
    /// Lower-case identifier for documents and metrics ("credential", "study_start").
    public let name: String
    /// What the entries wait for, in the operator's words: status shows "waiting for <this>".
    public let waitingFor: String
    /// A fault asks an operator to act (status "needs attention"); otherwise the hold is an
    /// expected wait that its owner ends (ENR-13: "waiting for approval, not a fault").
    public let isFault: Bool
    /// Whether `edge sync release` and a new token in the vault (AGT-6) may end it. False: only
    /// the capability that declared it releases it, and an operator's release is refused.
    public let operatorMayRelease: Bool

    public init(name: String, waitingFor: String, isFault: Bool, operatorMayRelease: Bool) {
        self.name = name
        self.waitingFor = waitingFor
        self.isFault = isFault
        self.operatorMayRelease = operatorMayRelease
    }

    /// The backend rejected the credential's token (SYN-7): a fault, released by a new token in
    /// the vault (AGT-6) or by `edge sync release` once the vault has one. Also what a hold
    /// written before kinds existed is (migration "v8").
    public static let credential = HoldKind(name: "credential", waitingFor: "a new token", isFault: true, operatorMayRelease: true)
}
