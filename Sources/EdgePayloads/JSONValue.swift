/// A parsed JSON value (see `JSONParser`). Numbers stay as their text: nothing here does arithmetic,
/// and keeping the text avoids any Double/Bool bridging ambiguity.
enum JSONValue: Sendable, Equatable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// "an object", "a number", ... for reasons.
    var kindName: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "true/false"
        case .null: return "null"
        }
    }

    var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }
}
