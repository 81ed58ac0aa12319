import EdgeAgent
import EdgeCore
import FoundationEssentials

/// The `receiving` section of edge.json (models/edge-config.schema.json).
///
/// Decision: the tenant is required when the section exists, because a dock that cannot tell its
/// own vendors from another organisation's must refuse every vendor card (RCV-4); a station
/// without the section refuses vendor cards with a message naming the missing key.
public struct ReceivingSettings: Sendable, Hashable, Decodable {
    /// Lower-case UUID.
    public var tenantID: String
    /// Where photo evidence is kept; nil: `<state dir>/photos`.
    public var photoDirectory: String?
    /// How long a photo stays after its GRN was applied (and the photo uploaded), seconds.
    public var photoRetention: Double
    /// How long `edge receive --confirm` waits for a running agent to send the GRN, seconds.
    public var confirmWait: Double

    public static let defaultPhotoRetention: Double = 24 * 3600
    public static let defaultConfirmWait: Double = 15

    public init(tenantID: String, photoDirectory: String? = nil, photoRetention: Double = defaultPhotoRetention,
                confirmWait: Double = defaultConfirmWait) {
        self.tenantID = tenantID.lowercased()
        self.photoDirectory = photoDirectory
        self.photoRetention = photoRetention
        self.confirmWait = confirmWait
    }

    /// The section as the station's loader checks it: its keys (unknown ones are refused) and
    /// its values, whatever the station's role (AGT-10).
    public static let configurationSection = ConfigurationSection.decoding("receiving", as: ReceivingSettings.self, keys: .object(CodingKeys.self))

    enum CodingKeys: String, CodingKey, CaseIterable {
        case tenantID = "tenant_id"
        case photoDirectory = "photo_dir"
        case photoRetention = "photo_retention"
        case confirmWait = "confirm_wait"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let tenant = try c.decode(String.self, forKey: .tenantID)
        guard Self.isUUID(tenant) else {
            throw DecodingError.dataCorruptedError(forKey: .tenantID, in: c, debugDescription: "must be a UUID (8-4-4-4-12 hex digits)")
        }
        tenantID = tenant.lowercased()
        photoDirectory = try c.decodeIfPresent(String.self, forKey: .photoDirectory)
        if let directory = photoDirectory, directory.isEmpty || directory.utf8.count > 4096 {
            throw DecodingError.dataCorruptedError(forKey: .photoDirectory, in: c, debugDescription: "must be a path of 1 to 4096 bytes")
        }
        photoRetention = try c.decodeIfPresent(Double.self, forKey: .photoRetention) ?? Self.defaultPhotoRetention
        // A week at most: photos of applied GRNs are the backend's to keep, not the station's.
        guard photoRetention >= 0, photoRetention <= 7 * 24 * 3600 else {
            throw DecodingError.dataCorruptedError(forKey: .photoRetention, in: c, debugDescription: "must be 0 to 604800 seconds")
        }
        confirmWait = try c.decodeIfPresent(Double.self, forKey: .confirmWait) ?? Self.defaultConfirmWait
        guard confirmWait >= 0, confirmWait <= 300 else {
            throw DecodingError.dataCorruptedError(forKey: .confirmWait, in: c, debugDescription: "must be 0 to 300 seconds")
        }
    }

    /// 8-4-4-4-12 hexadecimal digits, either case, not the nil UUID.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36, text != "00000000-0000-0000-0000-000000000000" else { return false }
        for (index, byte) in bytes.enumerated() {
            let hyphen = index == 8 || index == 13 || index == 18 || index == 23
            let hex = (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
            if hyphen ? byte != UInt8(ascii: "-") : !hex { return false }
        }
        return true
    }
}
