/// The linking-code alphabet (ENR-1): A-Z and 0-9 without the look-alikes I, 1, O, 0, S, 5, Z, 2.
public enum LinkingCodeAlphabet {
    /// The 28 characters a linking code is made of.
    public static let characters = "ABCDEFGHJKLMNPQRTUVWXY346789"
    /// Characters never used, because people confuse them with each other.
    public static let lookAlikes = "I1O0S5Z2"
    public static let codeLength = 10
    public static let prefixLength = 2

    private static let characterBytes = Set(characters.utf8)
    private static let lookAlikeBytes = Set(lookAlikes.utf8)

    static func contains(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && characterBytes.contains(UInt8(scalar.value))
    }

    /// Upper-case look-alikes only: normalisation upper-cases first, so "o" arrives here as "O".
    static func isLookAlike(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && lookAlikeBytes.contains(UInt8(scalar.value))
    }

    static func contains(_ byte: UInt8) -> Bool { characterBytes.contains(byte) }
}
