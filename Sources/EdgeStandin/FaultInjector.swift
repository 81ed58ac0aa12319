import EdgeCore


/// The faults in force, shared by every connection and changed by tests while the stand-in runs
/// (in process through this class, over HTTP through `/_standin/faults`).
///
/// Decision: one decision per request, taken when its head arrives (`decide(path:)`), by the
/// connection's channel handler, which then carries the whole fault out (closing, holding,
/// answering, doubling). Explicit faults are tried in the order they were added and the first
/// matching one with times left is used (its `times` counted down); random mode is consulted only
/// when no explicit fault matched.
public final class FaultInjector: Sendable {
    private struct State {
        var faults: [StandinFault] = []
        var random: RandomFaults?
        var generator = SeededGenerator(seed: 0)
    }

    private let state = Locked(State())

    public init() {}

    /// Adds a fault after those in force.
    public func add(_ fault: StandinFault) {
        state.withLock { $0.faults.append(fault) }
    }

    public func add(_ kind: FaultKind, pathPrefix: String? = nil, times: Int? = nil, parameters: FaultParameters = FaultParameters()) {
        add(StandinFault(kind, pathPrefix: pathPrefix, times: times, parameters: parameters))
    }

    /// Adds the plan's faults and, when it has one, replaces the random mode (its generator starts
    /// again from the seed).
    public func apply(_ plan: FaultPlan) {
        state.withLock { state in
            state.faults.append(contentsOf: plan.faults)
            if let random = plan.random {
                state.random = random
                state.generator = SeededGenerator(seed: random.seed)
            }
        }
    }

    /// Random mode on (starting from the seed) or off (nil).
    public func setRandom(_ random: RandomFaults?) {
        state.withLock { state in
            state.random = random
            state.generator = SeededGenerator(seed: random?.seed ?? 0)
        }
    }

    /// No faults, no random mode.
    public func clear() {
        state.withLock { state in
            state.faults = []
            state.random = nil
        }
    }

    /// What is in force: explicit faults with times left, and the random mode.
    public var plan: FaultPlan {
        state.withLock { FaultPlan(faults: $0.faults, random: $0.random) }
    }

    /// The fault for one request on a contract path, if any; counts it against its `times`.
    func decide(path: String) -> StandinFault? {
        state.withLock { state in
            if let index = state.faults.firstIndex(where: { $0.matches(path: path) && ($0.times ?? 1) > 0 }) {
                var fault = state.faults[index]
                if let times = fault.times {
                    if times <= 1 {
                        state.faults.remove(at: index)
                    } else {
                        state.faults[index].times = times - 1
                    }
                    fault.times = 1
                }
                return fault
            }
            guard let random = state.random, !random.kinds.isEmpty else { return nil }
            if let prefix = random.pathPrefix, !path.hasPrefix(prefix) { return nil }
            // Two draws per request whatever the outcome, so the n-th request's fault depends only
            // on the seed and n.
            let roll = state.generator.nextUnit()
            let pick = Int(state.generator.next() % UInt64(random.kinds.count))
            guard roll < random.probability else { return nil }
            return StandinFault(random.kinds[pick], times: 1, parameters: random.parameters)
        }
    }
}
