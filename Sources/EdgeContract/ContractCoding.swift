import FoundationEssentials

/// One JSON configuration for every body the agent and the stand-in exchange, so both sides
/// read and write the documents in `models/` the same way. Member names are spelled out in each
/// type's CodingKeys (snake_case on the wire) rather than converted, so the Swift types and the
/// OpenAPI document can be compared by eye.
public enum ContractCoding {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        // Stable output: the stand-in's idempotent replays and the tests compare bytes.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        JSONDecoder()
    }

    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        [UInt8](try encoder().encode(value))
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decoder().decode(type, from: Data(bytes))
    }
}
