/// The answer to `POST /api/mobile/scan/barcode`: one of three bodies, told apart by `type`.
public enum ScanBarcodeResponse: Sendable, Hashable, Codable {
    case purchaseOrder(PurchaseOrder)
    case material(MaterialInfo)
    case product(ProductInfo)

    enum CodingKeys: String, CodingKey {
        case type
    }

    public var type: LookupType {
        switch self {
        case .purchaseOrder: .purchaseOrder
        case .material: .material
        case .product: .product
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let tag = try container.decode(String.self, forKey: .type)
        switch LookupType(rawValue: tag) {
        case .purchaseOrder: self = .purchaseOrder(try PurchaseOrder(from: decoder))
        case .material: self = .material(try MaterialInfo(from: decoder))
        case .product: self = .product(try ProductInfo(from: decoder))
        case .vendor, nil:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "\(tag) is not a barcode lookup answer")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .purchaseOrder(let order): try order.encode(to: encoder)
        case .material(let material): try material.encode(to: encoder)
        case .product(let product): try product.encode(to: encoder)
        }
    }
}
