import EdgeCore
import EdgeSync

/// The sender's revocation hook (ENR-10) routed by credential name: a capability registers the
/// prefix of the credentials it issues (`enrollment.`) and decides refresh or revocation for
/// them; any other credential (the station's own token) is held as before (AGT-6).
public final class CredentialRejectionRouter: CredentialRejectionHandler {
    private let handlers = Locked<[(prefix: String, handler: any CredentialRejectionHandler)]>([])
    private let fallback: any CredentialRejectionHandler = HoldingRejectionHandler()

    public init() {}

    public func register(prefix: String, _ handler: any CredentialRejectionHandler) {
        handlers.withLock { $0.append((prefix, handler)) }
    }

    public func credentialRejected(_ credential: String?, status: Int, code: String?) async -> CredentialVerdict {
        let handler = credential.flatMap { name in handlers.withLock { list in list.first { name.hasPrefix($0.prefix) }?.handler } }
        return await (handler ?? fallback).credentialRejected(credential, status: status, code: code)
    }
}
