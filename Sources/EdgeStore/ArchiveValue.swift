import FoundationEssentials

/// A JSON value as the export document carries a capability's section (`StationArchiveSection`):
/// the store keeps and bounds the lists it does not know the rows of, the capability decodes them
/// into its own row types (`StationArchive.rows`).
///
/// Decision: integers are kept as `Int64` when the text is one (row ids, counts, byte sizes stay
/// exact); other numbers as `Double`, which round-trips what JSONEncoder wrote.
public enum ArchiveValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([ArchiveValue])
    case object([String: ArchiveValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ArchiveValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ArchiveValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// `rows` as JSON values, for a section's export.
    public static func list<Row: Encodable>(_ rows: [Row]) throws -> [ArchiveValue] {
        try JSONDecoder().decode([ArchiveValue].self, from: JSONEncoder().encode(rows))
    }
}
