/// Turns a URL into text safe for errors and descriptions: the query, fragment and any user
/// information are dropped (they may carry tokens), leaving scheme, host, port and path.
public enum URLRedaction {
    public static func printable(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard let schemeEnd = text.firstRange(of: "://") else { return String(text.prefix(200)) }
        let afterScheme = text[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        let authority = afterScheme[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return String(text.prefix(200)) }
        let cleaned = String(text[..<schemeEnd.upperBound]) + authority[authority.index(after: at)...] + afterScheme[authorityEnd...]
        return String(cleaned.prefix(200))
    }
}
