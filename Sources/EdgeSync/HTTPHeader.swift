public struct HTTPHeader: Sendable, Hashable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) { self.name = name; self.value = value }
}
