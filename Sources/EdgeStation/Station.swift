import EdgeAgent
import EdgeCore
import EdgeEnrollment
import EdgeKiosk
import EdgeReceiving

/// The station `buildStation` made: the agent that runs it, and the capabilities its role turned
/// on (for the screens' and tests' handles on the dock and the enrollments).
public struct Station: Sendable {
    public let agent: Agent
    public let enrollment: EnrollmentCapability?
    public let receiving: ReceivingCapability?
    public let kiosk: KioskCapability

    /// Runs every part until graceful shutdown; see `Agent.run`.
    public func run() async throws { try await agent.run() }
}

/// Why the station could not be built: its configuration, or a store it cannot open.
public typealias StationBuildError = CodedError<StationBuildErrorCode>

public enum StationBuildErrorCode: String, Sendable, Hashable {
    /// A section of edge.json is invalid (a capability refused it before anything started).
    case configuration
    /// The database could not be opened or the state directory made (AGT-1: nothing runs without it).
    case store
}

/// The whole station by its role (AGT-1, issue #27): the clinic's enrollment on clinic stations,
/// the dock's receiving on dock stations (both on `both`), and the kiosk showing whichever runs,
/// composed by `buildAgent` into one service group. The one seam `edge run` and the tests call.
///
/// Each section is checked before anything opens, so an invalid file starts nothing. The kiosk
/// comes last: it shows the others, which are in place when it is given its context.
public func buildStation(_ configuration: StationConfiguration, dependencies: AgentDependencies = AgentDependencies())
    throws(StationBuildError) -> Station {
    let role = configuration.station.role
    let enrollment: EnrollmentCapability?
    let receiving: ReceivingCapability?
    let kiosk: KioskCapability
    do {
        enrollment = role != .dock ? try EnrollmentCapability(configuration: configuration) : nil
        receiving = role != .clinic ? try ReceivingCapability(configuration: configuration) : nil
        kiosk = try KioskCapability(configuration: configuration, receiving: receiving, enrollment: enrollment)
    } catch {
        throw StationBuildError(.configuration, error.message)
    }
    var dependencies = dependencies
    dependencies.migrations = StationSchema.migrations
    dependencies.outboxKinds = StationSchema.outboxKinds
    var chosen: [any StationCapability] = []
    if let enrollment { chosen.append(enrollment) }
    if let receiving { chosen.append(receiving) }
    chosen.append(kiosk)
    dependencies.capabilities = chosen + dependencies.capabilities
    do {
        return Station(agent: try buildAgent(configuration, dependencies: dependencies), enrollment: enrollment, receiving: receiving, kiosk: kiosk)
    } catch {
        throw StationBuildError(.store, error.message)
    }
}
