/// Why a payload is not acceptable JSON.
struct JSONParseError: Error, Sendable, Equatable {
    enum Code: String, Sendable {
        case syntax
        case duplicateKey = "duplicate-key"
        case tooDeep = "too-deep"
        /// A key with a control or format character, or a value with a control (see JSONParser).
        case controlCharacter = "control-character"
    }

    let code: Code
    /// User-facing, e.g. "duplicate key \"vendor_id\"" or "unexpected character at byte 12".
    let message: String
    let offset: Int
}
