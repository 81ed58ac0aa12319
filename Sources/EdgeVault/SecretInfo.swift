/// What `edge vault status` may show about a secret (VLT-8): never its value.
public struct SecretInfo: Sendable, Equatable {
    public let name: String
    public let backend: VaultBackend
    public let keyID: String
    /// Unix seconds when this envelope was written.
    public let created: Int64
    /// Unix seconds after which the secret is not to be used; nil for none.
    public let notAfter: Int64?
}
