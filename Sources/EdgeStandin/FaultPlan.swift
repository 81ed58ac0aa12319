/// The faults in force: the body of `POST /_standin/faults` (added to those in force) and the
/// answer of `GET /_standin/faults` (what is left).
public struct FaultPlan: Sendable, Hashable, Codable {
    public var faults: [StandinFault]
    public var random: RandomFaults?

    public init(faults: [StandinFault] = [], random: RandomFaults? = nil) {
        self.faults = faults
        self.random = random
    }

    enum CodingKeys: String, CodingKey {
        case faults, random
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        faults = try container.decodeIfPresent([StandinFault].self, forKey: .faults) ?? []
        random = try container.decodeIfPresent(RandomFaults.self, forKey: .random)
    }
}
