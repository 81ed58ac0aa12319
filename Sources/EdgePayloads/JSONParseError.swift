/// Why a payload is not acceptable JSON.
struct JSONParseError: Error, Sendable, Equatable {
    enum Code: String, Sendable {
        case syntax
        case duplicateKey = "duplicate-key"
        case tooDeep = "too-deep"
    }

    let code: Code
    /// User-facing, e.g. "duplicate key \"vendor_id\"" or "unexpected character at byte 12".
    let message: String
    let offset: Int
}
