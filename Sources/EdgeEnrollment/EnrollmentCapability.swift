import EdgeAgent
import EdgeContract
import EdgeHTTP
import EdgePayloads
import EdgeSync
import FoundationEssentials
import GRDB
import Logging
import ServiceLifecycle

/// Enrollment in the station (ENR-10, ENR-13): the rejection hook for enrollment credentials, the
/// pulled approval changes, and the Study Start poller as a sender. Its changes go to the
/// station's fact stream after commit.
public struct EnrollmentCapability: StationCapability {
    public let name = "enrollment"
    let settings: EnrollmentSettings
    /// Set by `contribute`: the enrollments the station runs, for the local UI.
    public let enrollments = EnrollmentsHolder()

    public init(configuration: StationConfiguration) throws(StationConfigurationError) {
        settings = try configuration.section("enrollment", as: EnrollmentSettings.self) ?? EnrollmentSettings()
    }

    public func contribute(to context: StationContext) throws -> StationServices {
        guard let vault = context.vault else {
            // Retried with the vault (issue #28 item 4).
            throw EnrollmentError(.notConfigured, "The vault is not open yet; enrollment needs it for the tokens.")
        }
        let configuration = context.configuration
        // The same zone resolver as sync's and push's: X-Timezone agrees on every request.
        let identity = StationParts.identity(deviceID: try vault.deviceID(), push: configuration.push)
        let transport = try PortalClient.transport(settings)
        let enrollments = Enrollments(outbox: context.outbox, vault: vault, portal: PortalClient(transport: transport, identity: identity, settings: settings),
                                      liveSponsors: { context.configuration.payloads?.sponsors ?? .empty }, logger: context.logger, facts: context.facts,
                                      clock: context.now)
        self.enrollments.set(enrollments)
        context.rejections.register(prefix: Enrollment.credentialPrefix, enrollments)
        let wake = WakeSignal()
        context.router.onPulled(kinds: Enrollments.statusKinds) { db, changes, _ in
            let published = try enrollments.applyPulled(db, changes)
            // Observers hear it once the page commits; a pulled change the table does not know
            // (or not approved) still wakes the poller to ask.
            db.afterNextTransaction { _ in
                enrollments.store.publish(published)
                wake.wake()
            }
        }
        // Status (AGT-7) names the part and how often it asks; `edge enrollments` lists the rest.
        context.state.setPart(name, .running, reason: "Study Start approvals checked every \(Int(settings.statusPollInterval)) s")
        return StationServices(senders: [StudyStartPoller(enrollments: enrollments, interval: settings.statusPollInterval, wake: wake, transport: transport)])
    }
}

/// Where the UI finds the agent's `Enrollments` once the capability registered.
public final class EnrollmentsHolder: Sendable {
    private let value = Locked<Enrollments?>(nil)
    public init() {}
    public var enrollments: Enrollments? { value.get() }
    func set(_ enrollments: Enrollments) { value.set(enrollments) }
}

/// ENR-13: every `interval` seconds (60 by default), and at once when a pulled change says an
/// approval was decided, asks the portal about each STUDY_START_PENDING enrollment. A check in
/// flight is cancelled at graceful shutdown (the next start asks again), so a portal that never
/// answers does not hold the shutdown (issue #30 item 4).
struct StudyStartPoller: Service {
    let enrollments: Enrollments
    let interval: Double
    let wake: WakeSignal
    let transport: CurlTransport

    func run() async throws {
        defer { transport.shutdown() }
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            let enrollments = self.enrollments
            await cancelWhenGracefulShutdown { await enrollments.checkPending() }
            await wake.wait(upTo: .milliseconds(Int64(interval * 1000)))
        }
    }
}
