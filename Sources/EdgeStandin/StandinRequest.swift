/// A request as the backend logic sees it: no framework types, so the endpoints can be driven
/// without HTTP and the Hummingbird seam stays one small file (StandinResponder).
public struct StandinRequest: Sendable, Hashable {
    public var method: String
    /// Without the query.
    public var path: String
    public var query: [String: String]
    /// Names lower-cased; repeated fields joined with ", ".
    public var headers: [String: String]
    public var body: [UInt8]
    /// Which TCP connection it came on (0 when driven without HTTP): HTTP/2 streams of one
    /// connection share it, so tests can count connections (PSH-10).
    public var connection: Int

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [],
                connection: Int = 0) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
        self.connection = connection
    }

    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The token of `Authorization: Bearer <token>`, nil when absent or another scheme.
    var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].drop(while: { $0 == " " })
        return token.isEmpty ? nil : String(token)
    }
}
