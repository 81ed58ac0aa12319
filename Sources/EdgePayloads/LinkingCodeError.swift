/// Why a linking code failed local validation (ENR-3). `message` is the exact user-facing text.
///
/// Context never holds the code or any of its characters (ENR-8: the code is not logged), only counts.
@_exported import EdgeCore

public typealias LinkingCodeError = CodedError<LinkingCodeErrorCode>

public enum LinkingCodeErrorCode: String, Sendable, Hashable {
    case lookAlikeCharacters = "look-alike-characters"
    /// Not in ENR-3: characters that are neither alphabet nor look-alikes (punctuation, accented
    /// letters, control characters) in typed input. ENR-3's three messages do not cover them, and
    /// "10/10 characters" would be nonsense, so they get their own message.
    case invalidCharacters = "invalid-characters"
    case wrongLength = "wrong-length"
    case unknownPrefix = "unknown-prefix"
}

extension CodedError where Code == LinkingCodeErrorCode {
    public static let lookAlikeMessage =
        "Please check your code. The characters I, 1, O, 0, S, 5, Z, 2 are not used in linking codes."
    public static let invalidCharactersMessage =
        "Please check your code. Linking codes contain only letters and digits."
    public static let unknownPrefixMessage =
        "This linking code is not recognized. Please verify you have the correct code and try again."

    /// ENR-3: the count of valid characters, e.g. "8/10 characters".
    public static func wrongLengthMessage(validCharacters: Int) -> String {
        "\(validCharacters)/\(LinkingCodeAlphabet.codeLength) characters"
    }

    static let lookAlike = LinkingCodeError(.lookAlikeCharacters, lookAlikeMessage)
    static let invalidCharacters = LinkingCodeError(.invalidCharacters, invalidCharactersMessage)
    static let unknownPrefix = LinkingCodeError(.unknownPrefix, unknownPrefixMessage)
    static func wrongLength(_ count: Int) -> LinkingCodeError {
        LinkingCodeError(.wrongLength, wrongLengthMessage(validCharacters: count),
                         context: ["valid_characters": String(count), "expected": String(LinkingCodeAlphabet.codeLength)])
    }
}
