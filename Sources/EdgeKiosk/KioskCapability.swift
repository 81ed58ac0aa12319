import EdgeAgent
import EdgeEnrollment
import EdgeReceiving
import ServiceLifecycle

/// The kiosk in the station (UI-1): one more capability whose inputs are the local web UI and the
/// follower of the station's facts. It is given the station's enrollment and receiving
/// capabilities (whichever the role runs) and shows what they do; it adds no rules of its own.
public struct KioskCapability: StationCapability {
    public let name = "ui"
    public let settings: KioskSettings
    let receiving: ReceivingCapability?
    let enrollment: EnrollmentCapability?

    public init(configuration: StationConfiguration, receiving: ReceivingCapability?, enrollment: EnrollmentCapability?)
        throws(StationConfigurationError) {
        settings = try configuration.section("ui", as: KioskSettings.self) ?? KioskSettings()
        self.receiving = receiving
        self.enrollment = enrollment
    }

    public func contribute(to context: StationContext) throws -> StationServices {
        guard settings.enabled else {
            context.state.setPart(name, .stopped, reason: "disabled in edge.json (ui.enabled)")
            return StationServices()
        }
        if settings.requiresPIN {
            guard let vault = context.vault, (try? vault.secret(settings.pinSecret)) ?? nil != nil else {
                throw KioskError(.pinRequired, "The kiosk asks for an operator PIN (\(settings.isLoopback ? "ui.require_pin" : "it listens beyond loopback on \(settings.host)")) and the vault holds none: edge vault put \(settings.pinSecret)",
                                 status: .serviceUnavailable)
            }
        }
        let kiosk = try Kiosk(context: context, settings: settings, receiving: receiving, enrollment: enrollment)
        let logger = context.logger
        return StationServices(inputs: [KioskFollower(kiosk: kiosk, facts: context.facts.subscribe()),
                                        context.supervised(name) { KioskServer(kiosk: kiosk, logger: logger) }])
    }
}

/// The kiosk's own use of the fact stream: a linking code held to a clinic camera, and the
/// status (cameras, queue) every open screen is told of when it changes.
struct KioskFollower: Service {
    let kiosk: Kiosk
    /// Subscribed when the station was built, before the cameras started.
    let facts: StationFacts.Subscription

    func run() async throws {
        await withGracefulShutdownHandler { [kiosk, facts] in
            await kiosk.follow(facts)
        } onGracefulShutdown: { [facts] in
            facts.finish()
        }
    }
}
