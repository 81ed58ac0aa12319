/// What GS1 defines for one application identifier: its data title, whether it is in the
/// predefined-length table (no separator needed after it), the components of its data field
/// and the AIs it may not appear with (`GS1AITable` holds them all).
struct GS1AIDefinition: Sendable, Hashable {
    let ai: String
    /// GS1's data title, e.g. `GTIN`, `BATCH/LOT`, `USE BY or EXPIRY`.
    let title: String
    /// In GS1's table of predefined-length AIs (GenSpecs figure 7.8.5-2): the value needs no
    /// separator after it. Every other AI is followed by FNC1 / GS unless it ends the data.
    let predefinedLength: Bool
    let components: [GS1Component]
    /// 31nn-36nn, 39nn: the AI's last digit is the number of decimal places in the value (of its
    /// last component: 391n and 393n start with a currency code).
    let impliedDecimal: Bool
    /// AIs this one may not appear with (the dictionary's `ex=`); a trailing `n` stands for any
    /// digit, so `310n` is every other net weight in kg.
    let excludes: [String]

    var minLength: Int { components.filter { !$0.optional }.reduce(0) { $0 + $1.minLength } }
    var maxLength: Int { components.reduce(0) { $0 + $1.maxLength } }
    /// Every component fixed and present: the value's length is known before reading it.
    var isFixedLength: Bool { components.allSatisfy(\.isFixed) }

    /// The number of decimal places the AI states, when it states one.
    var decimalPlaces: Int? {
        guard impliedDecimal, let last = ai.utf8.last else { return nil }
        return Int(last - UInt8(ascii: "0"))
    }

    /// Does `pattern` (an AI, or one ending in `n` for any digit) name `other`?
    static func pattern(_ pattern: String, matches other: String) -> Bool {
        let p = Array(pattern.utf8), o = Array(other.utf8)
        guard p.count == o.count else { return false }
        for (a, b) in zip(p, o) where a != b && a != UInt8(ascii: "n") { return false }
        return true
    }
}
