import EdgeContract

/// What a revoked token gets from then on (ENR-10).
public enum RevocationCode: String, Sendable, Hashable, Codable, CaseIterable {
    /// 403 TOKEN_REVOKED.
    case tokenRevoked = "TOKEN_REVOKED"
    /// 403 PATIENT_DISCONNECTED.
    case patientDisconnected = "PATIENT_DISCONNECTED"
    /// The token is forgotten: 401 UNAUTHORIZED, ENR-10's other way of saying revoked.
    case unauthorized = "UNAUTHORIZED"
}
