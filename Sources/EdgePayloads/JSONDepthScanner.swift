/// Measures JSON nesting with a flat byte scan (no recursion, no allocation), so a payload such as
/// 10,000 `[` never reaches a recursive parser (SCN-10). Brackets inside strings are ignored;
/// the scan does not validate anything else.
enum JSONDepthScanner {
    static func exceeds(_ bytes: [UInt8], limit: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default: break
            }
        }
        return false
    }
}
