/// Why a linking code failed local validation (ENR-3). `message` is the exact user-facing text.
///
/// Context never holds the code or any of its characters (ENR-8: the code is not logged), only
/// counts, and `carrier` (url-query, url-path, json) when the code was in a link or JSON card.
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
    /// Not in ENR-3: a link or JSON card presented as a linking code that holds none (a card
    /// without "code", a link with two codes or none); the message says which.
    case unreadableCarrier = "unreadable-carrier"
    /// Not in ENR-3: a camera read a code on a symbology linking codes are not printed on (SCN-6:
    /// QR or Code 128), as `edge scan` reports it.
    case wrongSymbology = "wrong-symbology"
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

    /// What `unreadableCarrier` says, with the reason `edge scan` gives for the same payload.
    public static func unreadableCarrierMessage(_ reason: String) -> String {
        "This code holds no usable linking code: \(reason)."
    }

    static let lookAlike = LinkingCodeError(.lookAlikeCharacters, lookAlikeMessage)
    static let invalidCharacters = LinkingCodeError(.invalidCharacters, invalidCharactersMessage)
    static let unknownPrefix = LinkingCodeError(.unknownPrefix, unknownPrefixMessage)
    static func wrongLength(_ count: Int) -> LinkingCodeError {
        LinkingCodeError(.wrongLength, wrongLengthMessage(validCharacters: count),
                         context: ["valid_characters": String(count), "expected": String(LinkingCodeAlphabet.codeLength)])
    }
}
