/// Which key protects an envelope (VLT-1); recorded in every envelope so a vault can hold
/// envelopes from more than one backend while it migrates.
public enum VaultBackend: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case keyfile = 1
    case tpm2 = 2
    case keyfileTPM2 = 3

    public var description: String {
        switch self {
        case .keyfile: return "keyfile"
        case .tpm2: return "tpm2"
        case .keyfileTPM2: return "keyfile+tpm2"
        }
    }
}
