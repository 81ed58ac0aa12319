/// How a linking code was carried (SCN-6); reported as `carrier` in classification details.
public enum LinkingCodeCarrier: String, Sendable, Hashable, CaseIterable {
    /// `AB-CDE-FGHJK` or `ABCDEFGHJK` as the whole payload.
    case bare
    /// A URL with a `code=` query item.
    case urlQuery = "url-query"
    /// A URL whose last path segment is the code.
    case urlPath = "url-path"
    /// `{"type":"LINK","code":"..."}`.
    case json
}
