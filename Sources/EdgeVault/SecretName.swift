/// A vault secret's name: also its file name, so it is restricted to a safe alphabet
/// (`[a-z0-9][a-z0-9._-]{0,63}`): no path separators, no hidden files, no surprises in `ls`.
public struct SecretName: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) throws(VaultError) {
        let bytes = Array(value.utf8)
        let allowed: (UInt8) -> Bool = { b in
            (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x5F || b == 0x2D
        }
        guard (1...64).contains(bytes.count), let first = bytes.first,
              (first >= 0x61 && first <= 0x7A) || (first >= 0x30 && first <= 0x39), bytes.allSatisfy(allowed) else {
            throw VaultError(.invalidName, "secret names are 1-64 characters of a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
                             context: ["length": String(bytes.count)])
        }
        self.value = value
    }

    public var description: String { value }
}
