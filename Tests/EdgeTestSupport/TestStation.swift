import EdgeAgent
import EdgeCore
import EdgeCrypto
import EdgeStandin
import EdgeStation
import EdgeVault
import Foundation
import Logging

/// A station as the agent, receiving, enrollment and kiosk tests set one up (issue #27 item 8):
/// a temporary state directory, the stand-in on 127.0.0.1 (sync, the portal, FCM when asked),
/// a keyfile vault holding the station token (and the FCM service account, and the kiosk PIN
/// when given), and an edge.json for the role, built with `buildStation` (or `buildAgent` alone)
/// and a quiet logger (`EDGE_TEST_LOG=1` sends it to stderr). `stop()` shuts the running station
/// down, then the stand-in.
public final class TestStation: @unchecked Sendable, Stoppable {
    // @unchecked: the stored lets are set once in init; what changes is behind `Locked`.
    public let directory: TemporaryDirectory
    public let standin: Standin
    /// `http://127.0.0.1:PORT`, the stand-in's address.
    public let baseURL: String
    public let configPath: String
    public let token: String
    private let running = Locked<(agent: Agent, task: Task<Void, any Error>)?>(nil)

    /// - `station`: more keys of the `station` object, after a comma (`"metrics": "127.0.0.1:0"`).
    /// - `sections`: more top-level sections, after a comma (`"receiving": {...}`); `{base}` in
    ///   `station` and `sections` is replaced by the stand-in's address.
    /// - `fcm`: the stand-in takes a generated service account, which the vault holds as
    ///   `push.service-account`.
    /// - `sync`: whether edge.json has a `sync` section pointing at the stand-in, with
    ///   `syncTimeouts` (connect, total seconds).
    /// - `vaultBackend`, `tcti`: the vault's backend and TPM (a `Swtpm`'s `tcti`), as edge.json
    ///   names them; the secrets are put with the same backend.
    public init(role: String, name: String = "station-1", cameras: String = "[]", station: String = "", sections: String = "",
                token: String = "test-station-token", fcm: Bool = false, pin: String? = nil, sync: Bool = true,
                syncTimeouts: (connect: Double, total: Double) = (2, 5), vaultBackend: VaultBackendChoice = .keyfile, tcti: String? = nil,
                prefix: String = "edge-station") async throws {
        directory = try TemporaryDirectory(prefix: prefix)
        self.token = token
        let account = fcm ? try StandinServiceAccount.generate() : nil
        standin = Standin(configuration: StandinConfiguration(staticTokens: [token], seedDemoData: true,
                                                              fcmPublicKeyPEM: try account?.publicKeyPEM(), fcmClientEmail: account?.clientEmail))
        let base = "http://127.0.0.1:\(try await standin.start())"
        baseURL = base
        // Where the station's own paths put them (StationPaths): keys beside the state directory.
        let vault = try Vault(directory: directory.path + "/vault", keyDirectory: StationPaths.defaultKeyDirectory(forState: directory.path),
                              backend: vaultBackend, tcti: tcti ?? "device:/dev/tpmrm0")
        try vault.put(SecureBytes(Array(token.utf8)), name: SecretName("sync.token"))
        if let account { try vault.put(account.keyFile(tokenURI: base + "/token"), name: SecretName("push.service-account")) }
        if let pin { try vault.put(SecureBytes(Array(pin.utf8)), name: SecretName("ui.pin")) }
        configPath = directory.path + "/edge.json"
        func filled(_ text: String) -> String {
            text.isEmpty ? "" : ", " + text.replacingOccurrences(of: "{base}", with: base)
        }
        let syncSection = sync ? #", "sync": {"base_url": "\#(base)", "connect_timeout": \#(syncTimeouts.connect), "total_timeout": \#(syncTimeouts.total)}"# : ""
        try Data("""
            {"station": {"name": "\(name)", "role": "\(role)", "state_dir": ".", "vault_backend": "\(vaultBackend.rawValue)",\(tcti.map { #" "tcti": "\#($0)","# } ?? "") "pull_interval": 1,
                         "cameras": \(cameras)\(filled(station))}\(syncSection)\(filled(sections))}
            """.utf8).write(to: URL(fileURLWithPath: configPath))
    }

    /// edge.json as `edge run` loads it: with every capability's section (`StationSchema`).
    public func configuration() throws -> StationConfiguration {
        try StationConfiguration.load(path: configPath, sections: StationSchema.configurationSections)
    }

    /// What `edge run` gives the station, less the machine's environment and signals.
    public func dependencies() -> AgentDependencies {
        var dependencies = AgentDependencies()
        // No environment: EDGE_STATE_DIR and friends of the machine running the tests must not leak in.
        dependencies.environment = [:]
        dependencies.retry = BackoffPolicy(base: 0.1, cap: 0.4)
        dependencies.logger = Logger(label: "edge-test") { label in
            ProcessInfo.processInfo.environment["EDGE_TEST_LOG"] != nil ? StreamLogHandler.standardError(label: label) as any LogHandler
                : SwiftLogNoOpLogHandler()
        }
        return dependencies
    }

    /// The whole station by its role, as `edge run` builds it (not started).
    public func station(_ adjust: (inout AgentDependencies) -> Void = { _ in }) throws -> Station {
        var dependencies = dependencies()
        adjust(&dependencies)
        return try buildStation(try configuration(), dependencies: dependencies)
    }

    /// The agent alone, without the role's capabilities (not started).
    public func agent(_ adjust: (inout AgentDependencies) -> Void = { _ in }) throws -> Agent {
        var dependencies = dependencies()
        adjust(&dependencies)
        return try buildAgent(try configuration(), dependencies: dependencies)
    }

    /// Runs `agent` until `stop()` (or `stopAgent()`).
    public func run(_ agent: Agent) {
        running.set((agent, Task { try await agent.run() }))
    }

    /// Builds the station and runs it.
    @discardableResult
    public func start(_ adjust: (inout AgentDependencies) -> Void = { _ in }) throws -> Station {
        let built = try station(adjust)
        run(built.agent)
        return built
    }

    /// Shuts the running agent down and waits for it; the stand-in keeps running.
    public func stopAgent() async throws {
        guard let (agent, task) = running.withLock({ value -> (Agent, Task<Void, any Error>)? in defer { value = nil }; return value }) else { return }
        await agent.shutdown()
        try await task.value
    }

    public func stop() async {
        try? await stopAgent()
        await standin.stop(timeout: .seconds(5))
    }
}
