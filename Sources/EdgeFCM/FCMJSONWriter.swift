import EdgeContract

/// Serializes a message's `JSONValue` to exactly the bytes `ContractCoding.encode` writes
/// (sorted keys in Swift `String` order, `/` unescaped, control characters escaped as JSONEncoder
/// does), without going through `Encoder`.
///
/// Decision: the relay builds one message per device and send; through `JSONEncoder` that was
/// 12 % of the relay's CPU in the benchmark (perf, Benchmarks section 6: ~21 µs of the ~23 µs
/// a message took to build), through this writer ~4 µs. Byte-for-byte equality with
/// `ContractCoding` is held by a test, so the wire format does not depend on which path wrote
/// it. Floating-point numbers (messages carry none) are left to `ContractCoding`: `serialize`
/// returns nil for them.
enum FCMJSONWriter {
    static func serialize(_ value: JSONValue) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        guard write(value, into: &bytes) else { return nil }
        return bytes
    }

    static func write(_ value: JSONValue, into bytes: inout [UInt8]) -> Bool {
        switch value {
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            var first = true
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                guard write(member, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "}"))
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                guard write(element, into: &bytes) else { return false }
            }
            bytes.append(UInt8(ascii: "]"))
        case .string(let string):
            writeString(string, into: &bytes)
        case .integer(let integer):
            bytes.append(contentsOf: String(integer).utf8)
        case .bool(let bool):
            bytes.append(contentsOf: (bool ? "true" : "false").utf8)
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .number:
            return false
        }
        return true
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func writeString(_ string: String, into bytes: inout [UInt8]) {
        // Scanned as contiguous UTF-8: through `String.UTF8View`'s index the check cost ~30
        // instructions a byte, ~15k per message (issue #31); over the buffer, a few.
        var string = string
        string.withUTF8 { utf8 in writeString(utf8, into: &bytes) }
    }

    private static func writeString(_ utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied in one go.
        guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
