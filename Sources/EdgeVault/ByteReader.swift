/// Bounds-checked big-endian reads from an untrusted byte string; running past the end is a
/// `truncated` error, never a trap.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func take(_ n: Int) throws(VaultError) -> [UInt8] {
        guard n >= 0, n <= remaining else {
            throw VaultError(.truncated, "the vault file ends early", context: ["offset": String(offset), "wanted": String(n)])
        }
        defer { offset += n }
        return Array(bytes[offset..<(offset + n)])
    }

    mutating func uint8() throws(VaultError) -> UInt8 { try take(1)[0] }

    mutating func uint16() throws(VaultError) -> UInt16 {
        let b = try take(2)
        return UInt16(b[0]) << 8 | UInt16(b[1])
    }

    mutating func uint32() throws(VaultError) -> UInt32 {
        try take(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int64() throws(VaultError) -> Int64 {
        Int64(bitPattern: try take(8).reduce(0) { $0 << 8 | UInt64($1) })
    }
}
