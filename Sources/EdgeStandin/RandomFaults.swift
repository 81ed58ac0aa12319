/// Random faults for soak and crash tests (SYN-12): each contract request is hit with
/// `probability` by one of `kinds`, chosen by a generator seeded with `seed`, so the same seed
/// and the same sequence of requests give the same faults.
public struct RandomFaults: Sendable, Hashable, Codable {
    public var seed: UInt64
    /// 0 to 1.
    public var probability: Double
    public var kinds: [FaultKind]
    /// Only requests under this path (any contract path when nil).
    public var pathPrefix: String?
    /// Given to every fault picked (delay, status, Retry-After).
    public var parameters: FaultParameters

    public init(seed: UInt64, probability: Double, kinds: [FaultKind] = FaultKind.randomDefaults, pathPrefix: String? = nil, parameters: FaultParameters = FaultParameters()) {
        self.seed = seed
        self.probability = probability
        self.kinds = kinds
        self.pathPrefix = pathPrefix
        self.parameters = parameters
    }

    enum CodingKeys: String, CodingKey {
        case seed, probability, kinds
        case pathPrefix = "path_prefix"
        case parameters
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seed = try container.decode(UInt64.self, forKey: .seed)
        probability = try container.decode(Double.self, forKey: .probability)
        kinds = try container.decodeIfPresent([FaultKind].self, forKey: .kinds) ?? FaultKind.randomDefaults
        pathPrefix = try container.decodeIfPresent(String.self, forKey: .pathPrefix)
        parameters = try container.decodeIfPresent(FaultParameters.self, forKey: .parameters) ?? FaultParameters()
    }
}
