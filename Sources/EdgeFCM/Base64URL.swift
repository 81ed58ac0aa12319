import FoundationEssentials

/// base64url without padding (RFC 7515 2), as JWT segments are written.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
