public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    public init(method: HTTPMethod, url: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }
}
