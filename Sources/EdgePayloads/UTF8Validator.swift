/// Finds the first byte where a buffer stops being valid UTF-8 (overlong forms, surrogates and
/// truncated sequences included), using the standard library's own decoder.
enum UTF8Validator {
    /// Offset of the first invalid byte, or nil when the whole buffer is valid UTF-8.
    static func firstInvalidOffset(_ bytes: [UInt8]) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }
}
