import EdgeAgent
import EdgeEnrollment
import EdgeReceiving
import ServiceLifecycle

/// The kiosk in the agent (UI-1): one more capability whose service is the local web UI. It is
/// given the station's enrollment and receiving capabilities (whichever the role runs) and shows
/// what they do; it adds no rules of its own.
public struct KioskCapability: AgentCapability {
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

    public func register(in agent: Agent) throws -> [any Service] {
        guard settings.enabled else {
            agent.state.setPart(name, .stopped, reason: "disabled in edge.json (ui.enabled)")
            return []
        }
        if settings.requiresPIN {
            guard let vault = agent.vault, (try? vault.secret(settings.pinSecret)) ?? nil != nil else {
                throw KioskError(.pinRequired, "The kiosk asks for an operator PIN (\(settings.isLoopback ? "ui.require_pin" : "it listens beyond loopback on \(settings.host)")) and the vault holds none: edge vault put \(settings.pinSecret)",
                                 status: .serviceUnavailable)
            }
        }
        let kiosk = try Kiosk(agent: agent, settings: settings, receiving: receiving, enrollment: enrollment)
        if kiosk.servesClinic { agent.onCameraRead { read in kiosk.cameraRead(read) } }
        let logger = agent.logger
        return [agent.supervised(name) { KioskServer(kiosk: kiosk, logger: logger) }]
    }
}
