/// One request to the backend. `url` is absolute: `https://…`, or `http://` to a loopback host only.
///
/// The body and credential headers are secrets: `description`, `debugDescription` and the mirror
/// show the body's size and redact `Authorization` (see `HTTPHeader`).
public struct HTTPRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var method: HTTPMethod
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(method: HTTPMethod, url: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    public var description: String {
        "\(method.rawValue) \(URLRedaction.printable(url)) (\(headers.count) headers, \(body.count)-byte body)"
    }

    public var debugDescription: String {
        "HTTPRequest(\(method.rawValue) \(URLRedaction.printable(url)), headers: \(headers.map(\.description)), body: \(body.count) bytes)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "method": method, "url": URLRedaction.printable(url), "headers": headers, "bodyBytes": body.count,
        ])
    }
}
