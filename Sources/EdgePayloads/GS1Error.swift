/// Why a GS1 element string was refused (SCN-13). `message` is the user-facing reason and names
/// the AI when one is at fault, e.g. `(17) USE BY or EXPIRY: 201332 is not a date (month 13)`;
/// `context` holds `ai` (when known) and `position` (1-based, in the element data after any
/// symbology identifier), never more of the payload than the message quotes.
public typealias GS1Error = CodedError<GS1ErrorCode>

public enum GS1ErrorCode: String, Sendable, Hashable {
    /// No element at all (an empty symbol, a bare symbology identifier).
    case empty
    /// Over `GS1ElementString.maxBytes` or `maxElements`: not parsed further.
    case tooLong = "too-long"
    /// Digits that start no AI GS1 defines (or that this station's table lacks).
    case unknownAI = "unknown-ai"
    /// An AI cut off by the end of the data or a separator, or a non-digit where an AI must start.
    case malformedAI = "malformed-ai"
    /// A value shorter than its AI allows (including an empty one).
    case valueTooShort = "value-too-short"
    /// A value longer than its AI allows: usually a missing separator after a variable-length AI.
    case valueTooLong = "value-too-long"
    /// A fixed-length AI outside GS1's predefined-length table not followed by a separator.
    case missingSeparator = "missing-separator"
    /// A character the AI's character set (numeric, CSET 82, CSET 39, CSET 64) does not hold.
    case invalidCharacter = "invalid-character"
    case badCheckDigit = "bad-check-digit"
    case invalidDate = "invalid-date"
    /// A value that breaks its AI's other rules (a time, a piece of a total, a decimal position).
    case invalidValue = "invalid-value"
    /// The same AI twice with different values, or two AIs GS1 does not allow together.
    case conflictingAI = "conflicting-ai"
    /// The human-readable form `(01)...(17)...` is malformed.
    case malformedText = "malformed-text"
}

extension CodedError where Code == GS1ErrorCode {
    /// The AI at fault, when the error concerns one.
    public var ai: String? { context["ai"] }

    static func at(_ code: GS1ErrorCode, _ message: String, ai: String?, position: Int) -> GS1Error {
        var context = ["position": String(position)]
        if let ai { context["ai"] = ai }
        return GS1Error(code, message, context: context)
    }
}
