/// The revocation hook (SYN-7, ENR-10): called when an authenticated call is answered 401, or
/// 403 TOKEN_REVOKED / PATIENT_DISCONNECTED. The enrollment capability tries one refresh and,
/// failing that, revokes the enrollment; the sender then holds that credential's entries.
public protocol CredentialRejectionHandler: Sendable {
    func credentialRejected(_ credential: String?, status: Int, code: String?) async -> CredentialVerdict
}

/// Without an enrollment capability attached (a receiving-only station): no refresh is
/// possible, so the credential is held until an operator or a new token releases it.
public struct HoldingRejectionHandler: CredentialRejectionHandler {
    public init() {}

    public func credentialRejected(_ credential: String?, status: Int, code: String?) async -> CredentialVerdict {
        .revoked(reason: "HTTP \(status)" + (code.map { " " + $0 } ?? ""))
    }
}
