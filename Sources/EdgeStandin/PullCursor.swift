import FoundationEssentials

/// The opaque pull cursor (SYN-9): base64url (no padding, safe in a query without escaping) of
/// `standin:<offset into the change log>`. Opaque to clients, who must send it back unchanged; a
/// cursor the stand-in did not make is answered 400.
enum PullCursor {
    private static let prefix = "standin:"

    static func encode(offset: Int) -> String {
        String(Data("\(prefix)\(offset)".utf8).base64EncodedString().compactMap { character -> Character? in
            switch character {
            case "+": "-"
            case "/": "_"
            case "=": nil
            default: character
            }
        })
    }

    static func decode(_ cursor: String) -> Int? {
        var base64 = String(cursor.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasPrefix(prefix), let offset = Int(text.dropFirst(prefix.count)), offset >= 0 else { return nil }
        return offset
    }
}
