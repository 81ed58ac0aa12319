/// The `type` member that tags every lookup answer, so one decoder can tell a purchase order from a
/// material or a product without guessing from the other members.
public enum LookupType: String, Sendable, Hashable, Codable, CaseIterable {
    case purchaseOrder = "PURCHASE_ORDER"
    case material = "MATERIAL"
    case product = "PRODUCT"
    case vendor = "VENDOR"

    /// Decodes `type` from `container` and refuses any other tag than `expected`: a body tagged for
    /// another type must not be read as this one just because the members happen to fit.
    static func require<Key: CodingKey>(_ expected: LookupType, in container: KeyedDecodingContainer<Key>, forKey key: Key) throws {
        let tag = try container.decode(String.self, forKey: key)
        guard tag == expected.rawValue else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "type is \(tag), expected \(expected.rawValue)")
        }
    }
}
