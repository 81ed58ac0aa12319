/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) over the sealed blob. It is not a
/// security check (the TPM's HMAC over the private area is); it lets accidental damage be
/// reported as `blobCorrupt` before the TPM is asked, instead of as a TPM integrity failure
/// that cannot be told apart from a blob sealed on another TPM. It detects every 1-, 2- and
/// 3-bit error and every burst up to 32 bits.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 != 0 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }
}
