import Glibc

/// The seam over glibc's iconv (`iconv_open`, `iconv`, `iconv_close`): strict conversion of a
/// whole byte string to UTF-8. Returns nil when the bytes are not valid in `charset`.
enum Iconv {
    static func toUTF8(_ bytes: [UInt8], from charset: String) -> String? {
        let cd = iconv_open("UTF-8", charset)
        // iconv_open signals failure with (iconv_t)-1.
        guard let cd, Int(bitPattern: cd) != -1 else { return nil }
        defer { iconv_close(cd) }
        if bytes.isEmpty { return "" }
        var input = bytes.map { CChar(bitPattern: $0) }
        // Worst case: every byte becomes a 4-byte UTF-8 sequence.
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var outLeft = outBuf.count
                while inLeft > 0 {
                    let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                    if r == -1 {
                        if errno == EINTR { continue }
                        return nil  // EILSEQ / EINVAL: not valid in this charset.
                    }
                }
                return outBuf.count - outLeft
            }
        }
        guard let produced else { return nil }
        let utf8 = output[0..<produced].map { UInt8(bitPattern: $0) }
        return String(validating: utf8, as: UTF8.self)
    }
}
