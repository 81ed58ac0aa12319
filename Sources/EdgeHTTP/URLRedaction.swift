/// Turns a URL into text safe for errors and descriptions: the query, fragment and any user
/// information are dropped (they may carry tokens), leaving scheme, host, port and path.
///
/// Why bytes: the delimiters are ASCII, and walking Characters cost the push relay ~50k
/// instructions a request (issue #31 profile); on UTF-8 it is a short scan.
public enum URLRedaction {
    public static func printable(_ url: String) -> String {
        let bytes = Array(url.utf8)
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        var kept = bytes[..<end]
        if let schemeEnd = Self.schemeEnd(kept) {
            let authorityEnd = kept[schemeEnd...].firstIndex(of: UInt8(ascii: "/")) ?? kept.endIndex
            if let at = kept[schemeEnd..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) {
                kept = ArraySlice(kept[..<schemeEnd] + kept[(at + 1)...])
            }
        }
        let text = String(decoding: kept, as: UTF8.self)
        return kept.count <= 200 ? text : String(text.prefix(200))
    }

    /// The index just after the first "://", nil when there is none.
    private static func schemeEnd(_ bytes: ArraySlice<UInt8>) -> Int? {
        var i = bytes.startIndex
        while i + 2 < bytes.endIndex {
            if bytes[i] == UInt8(ascii: ":"), bytes[i + 1] == UInt8(ascii: "/"), bytes[i + 2] == UInt8(ascii: "/") { return i + 3 }
            i += 1
        }
        return nil
    }
}
