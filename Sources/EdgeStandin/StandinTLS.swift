/// The certificate (chain) and private key, PEM files, an HTTPS stand-in serves with.
public struct StandinTLS: Sendable, Hashable {
    public var certificateChain: String
    public var privateKey: String

    public init(certificateChain: String, privateKey: String) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }
}
