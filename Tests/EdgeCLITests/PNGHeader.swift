import Foundation

/// Hand-built PNG files for hostile-input tests.
enum PNGHeader {
    /// Signature + a valid IHDR (correct CRC) claiming the given size, then a tiny IDAT and IEND.
    static func claiming(width: UInt32, height: UInt32) -> Data {
        file(width: width, height: height, zlib: Data([0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]))
    }

    /// An 8-bit gray PNG of the given size whose one IDAT chunk holds `zlib`.
    static func file(width: UInt32, height: UInt32, zlib: Data) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var ihdr = Data()
        ihdr.append(contentsOf: bigEndian(width))
        ihdr.append(contentsOf: bigEndian(height))
        ihdr.append(contentsOf: [8, 0, 0, 0, 0])  // 8-bit gray, deflate, no filter, no interlace
        data.append(chunk("IHDR", ihdr))
        data.append(chunk("IDAT", zlib))
        data.append(chunk("IEND", Data()))
        return data
    }

    static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    private static func chunk(_ type: String, _ body: Data) -> Data {
        var c = Data(bigEndian(UInt32(body.count)))
        let typed = Data(type.utf8) + body
        c.append(typed)
        c.append(contentsOf: bigEndian(crc32(typed)))
        return c
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}
