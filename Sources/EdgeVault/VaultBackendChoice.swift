/// The backend asked for in configuration (VLT-1); `auto` picks the strongest available.
public enum VaultBackendChoice: String, Sendable, CaseIterable {
    case keyfile
    case tpm2
    case keyfileTPM2 = "keyfile+tpm2"
    case auto
}
