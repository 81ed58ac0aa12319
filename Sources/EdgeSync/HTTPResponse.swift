public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [HTTPHeader]
    public let body: [UInt8]
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) { self.status = status; self.headers = headers; self.body = body }
    public func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}
