import EdgeContract

extension JSONValue {
    /// The value with every integer as a Double, so `10` and `10.0` compare equal: a quantity the
    /// document writes as `10` comes back from a Double as either.
    var normalized: JSONValue {
        switch self {
        case .object(let members): .object(members.mapValues(\.normalized))
        case .array(let elements): .array(elements.map(\.normalized))
        case .integer(let integer): .number(Double(integer))
        default: self
        }
    }
}
