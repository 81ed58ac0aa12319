/// A complete response: the final status (never a 1xx), its header fields with names
/// lower-cased in the order received, the body, and the negotiated HTTP version.
///
/// The body may carry secrets (token refresh answers): `description` and the mirror show only its size.
public struct HTTPResponse: Sendable, CustomStringConvertible, CustomReflectable {
    public let status: Int
    public let headers: [HTTPHeader]
    public let body: [UInt8]
    public let version: HTTPVersion

    public init(status: Int, headers: [HTTPHeader], body: [UInt8], version: HTTPVersion) {
        self.status = status
        self.headers = headers.map { HTTPHeader(ASCIILowercase.string($0.name), $0.value) }
        self.body = body
        self.version = version
    }

    /// The first value of header `name`, compared case-insensitively; nil if absent.
    public func header(_ name: String) -> String? {
        let wanted = ASCIILowercase.string(name)
        return headers.first { $0.name == wanted }?.value
    }

    /// Every value of header `name` in order (for headers that may repeat).
    public func headers(named name: String) -> [String] {
        let wanted = ASCIILowercase.string(name)
        return headers.filter { $0.name == wanted }.map(\.value)
    }

    public var description: String {
        "HTTP/\(version.rawValue) \(status) (\(headers.count) headers, \(body.count)-byte body)"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "version": version, "headers": headers, "bodyBytes": body.count])
    }
}
