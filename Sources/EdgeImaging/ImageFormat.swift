/// The container formats `ImageLoader` decodes, recognised by their magic bytes only.
///
/// The file name is never consulted: photos arrive renamed, and a lying extension must neither
/// break a good file nor get a bad one past the right decoder (SCN-10).
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case png
    case jpeg
    /// Netpbm: PBM, PGM and PPM, plain (P1-P3) or raw (P4-P6).
    case pnm

    /// "PNG", "JPEG", "PNM": for messages.
    public var displayName: String { rawValue.uppercased() }

    /// The format whose signature starts `bytes`, or nil.
    public init?(magic bytes: some Collection<UInt8>) {
        guard let format = ImageFormat.detect(Array(bytes.prefix(8))) else { return nil }
        self = format
    }

    static func detect(_ b: some RandomAccessCollection<UInt8>) -> ImageFormat? {
        let p = Array(b.prefix(8))
        if p.count >= 8, p == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        // SOI followed by the first marker's 0xFF.
        if p.count >= 3, p[0] == 0xFF, p[1] == 0xD8, p[2] == 0xFF { return .jpeg }
        // "P1".."P6" then whitespace (a comment may also follow directly).
        if p.count >= 3, p[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(p[1]),
           PNMDecoder.isWhitespace(p[2]) || p[2] == UInt8(ascii: "#") {
            return .pnm
        }
        return nil
    }

    /// The format whose signature the whole of `bytes` is a proper beginning of: data cut off
    /// inside the magic bytes ("\u{89}PN", "\u{FF}\u{D8}", "P5").
    static func cutSignature(_ b: some RandomAccessCollection<UInt8>) -> ImageFormat? {
        let p = Array(b.prefix(9))
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        if !p.isEmpty, p.count < png.count, Array(png.prefix(p.count)) == p { return .png }
        if p == [0xFF, 0xD8] { return .jpeg }
        if p.count == 2, p[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(p[1]) { return .pnm }
        return nil
    }

    /// A short name for a few well-known formats we do not decode, to make the error specific.
    static func otherFormatName(_ b: some RandomAccessCollection<UInt8>) -> String? {
        let p = Array(b.prefix(12))
        func starts(_ s: [UInt8]) -> Bool { p.count >= s.count && Array(p.prefix(s.count)) == s }
        if starts(Array("GIF8".utf8)) { return "GIF" }
        if starts(Array("BM".utf8)) { return "BMP" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "TIFF" }
        if p.count >= 12, starts(Array("RIFF".utf8)), Array(p[8..<12]) == Array("WEBP".utf8) { return "WebP" }
        if p.count >= 12, Array(p[4..<8]) == Array("ftyp".utf8) { return "HEIF/AVIF" }
        if starts(Array("P7".utf8)) { return "PAM (P7)" }
        return nil
    }
}
