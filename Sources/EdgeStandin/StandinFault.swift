/// One injected fault: `kind` applies to requests whose path starts with `pathPrefix` (any
/// contract path when nil), `times` times (for ever when nil). Faults never touch `/_standin/`.
public struct StandinFault: Sendable, Hashable, Codable {
    public var kind: FaultKind
    public var pathPrefix: String?
    /// Requests left to hit; nil for ever.
    public var times: Int?
    public var parameters: FaultParameters

    public init(_ kind: FaultKind, pathPrefix: String? = nil, times: Int? = nil, parameters: FaultParameters = FaultParameters()) {
        self.kind = kind
        self.pathPrefix = pathPrefix
        self.times = times
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case kind
        case pathPrefix = "path_prefix"
        case times, parameters
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(FaultKind.self, forKey: .kind)
        pathPrefix = try container.decodeIfPresent(String.self, forKey: .pathPrefix)
        times = try container.decodeIfPresent(Int.self, forKey: .times)
        // Parameters are optional on the wire so `{"kind":"refuse"}` is a whole fault.
        parameters = try container.decodeIfPresent(FaultParameters.self, forKey: .parameters) ?? FaultParameters()
    }

    func matches(path: String) -> Bool {
        guard let pathPrefix else { return true }
        return path.hasPrefix(pathPrefix)
    }
}
