/// `POST /api/enrollment/link` (ENR-5): the linking code the station validated locally, and the
/// station's device UUID (ENR-15) so the portal can tell a retry from another station using the
/// same code. The only call made without a bearer token: the token is what it returns.
public struct EnrollmentLinkRequest: Sendable, Hashable, Codable {
    /// Ten characters, sent unformatted (no dashes), as ENR-2 normalised it.
    public var linkingCode: String
    public var deviceUUID: String

    public init(linkingCode: String, deviceUUID: String) {
        self.linkingCode = linkingCode
        self.deviceUUID = deviceUUID
    }

    enum CodingKeys: String, CodingKey {
        case linkingCode = "linking_code"
        case deviceUUID = "device_uuid"
    }
}
