import EdgeContract

/// Which Swift type reads and writes each schema of the contract. A body whose schema has no entry
/// here fails the round-trip test: every body must have its Swift type (SYN-10).
enum ContractTypeTable {
    /// Decodes the JSON bytes as the schema's Swift type and encodes that value again.
    typealias RoundTrip = @Sendable ([UInt8]) throws -> [UInt8]

    static let roundTrips: [String: RoundTrip] = [
        "APIErrorEnvelope": roundTrip(APIErrorEnvelope.self),
        "SyncPushRequest": roundTrip(SyncPushRequest.self),
        "SyncPushResponse": roundTrip(SyncPushResponse.self),
        "SyncPullResponse": roundTrip(SyncPullResponse.self),
        "EnrollmentLinkRequest": roundTrip(EnrollmentLinkRequest.self),
        "EnrollmentLinkResponse": roundTrip(EnrollmentLinkResponse.self),
        "EnrollmentStatusResponse": roundTrip(EnrollmentStatusResponse.self),
        "EnrollmentRefreshRequest": roundTrip(EnrollmentRefreshRequest.self),
        "EnrollmentRefreshResponse": roundTrip(EnrollmentRefreshResponse.self),
        "ScanLookupRequest": roundTrip(ScanLookupRequest.self),
        "ScanBarcodeResponse": roundTrip(ScanBarcodeResponse.self),
        "VendorInfo": roundTrip(VendorInfo.self),
        "GRNConfirmRequest": roundTrip(GRNConfirmRequest.self),
        "GRNConfirmResponse": roundTrip(GRNConfirmResponse.self),
        "GRNConflictError": grnConflictRoundTrip,
        "GRNPhotoReceipt": roundTrip(GRNPhotoReceipt.self),
        "DeviceRegistrationRequest": roundTrip(DeviceRegistrationRequest.self),
        "DeviceRegistrationResponse": roundTrip(DeviceRegistrationResponse.self),
    ]

    static func roundTrip<T: Codable & Sendable>(_ type: T.Type) -> RoundTrip {
        { bytes in try ContractCoding.encode(try ContractCoding.decode(T.self, from: bytes)) }
    }

    /// A GRN conflict is an APIErrorEnvelope whose details the agent reads as GRNConflictDetails:
    /// both readings must hold.
    static let grnConflictRoundTrip: RoundTrip = { bytes in
        var envelope = try ContractCoding.decode(APIErrorEnvelope.self, from: bytes)
        let details = try ContractCoding.decode(GRNConflictDetails.self, from: try ContractCoding.encode(envelope.error.details ?? .null))
        envelope.error.details = try ContractCoding.decode(JSONValue.self, from: try ContractCoding.encode(details))
        return try ContractCoding.encode(envelope)
    }
}
