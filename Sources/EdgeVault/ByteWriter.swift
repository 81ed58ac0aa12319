/// Big-endian appends for the envelope format.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    mutating func append(_ b: [UInt8]) { bytes += b }
    mutating func uint8(_ v: UInt8) { bytes.append(v) }
    mutating func uint16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func uint32(_ v: UInt32) { bytes += (0..<4).reversed().map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }
    mutating func int64(_ v: Int64) {
        let u = UInt64(bitPattern: v)
        bytes += (0..<8).reversed().map { UInt8((u >> (8 * UInt64($0))) & 0xFF) }
    }
}
