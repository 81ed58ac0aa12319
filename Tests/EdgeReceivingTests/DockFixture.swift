import EdgeAgent
import EdgeContract
import EdgeCrypto
import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeSync
import EdgeTestSupport
import EdgeVault
import Foundation
import Testing

/// A receiving station as provisioned: an edge.json with sync and receiving sections, a vault with
/// the station token, the store, and the dock built from them as `edge receive` builds it, against
/// an in-process stand-in on 127.0.0.1 with the demo orders.
final class DockFixture: @unchecked Sendable, Stoppable {
    static let token = "receiving-test-station-token"
    /// Another organisation's tenant, for RCV-4.
    static let otherTenant = "11111111-2222-4333-8444-555555555555"

    let directory: TemporaryDirectory
    let standin: Standin
    let configPath: String
    let configuration: StationConfiguration
    let outbox: Outbox
    let parts: ReceivingParts
    let vault: StationVault
    var dock: ReceivingDock { parts.dock }

    init(extraStandinTokens: [String] = []) async throws {
        directory = try TemporaryDirectory(prefix: "edge-receiving")
        standin = Standin(configuration: StandinConfiguration(staticTokens: [Self.token] + extraStandinTokens, seedDemoData: true))
        let port = try await standin.start()
        let opened = try Vault(directory: directory.path + "/vault", backend: .keyfile)
        try opened.put(SecureBytes(Array(Self.token.utf8)), name: SecretName("sync.token"))
        vault = StationVault(opened)
        configPath = directory.path + "/edge.json"
        try Data("""
            {"station": {"name": "dock-1", "role": "dock", "state_dir": ".", "vault_backend": "keyfile", "cameras": []},
             "sync": {"base_url": "http://127.0.0.1:\(port)", "connect_timeout": 2, "total_timeout": 5},
             "receiving": {"tenant_id": "\(DemoData.tenantID.uppercased())", "photo_retention": 0, "confirm_wait": 2}}
            """.utf8).write(to: URL(fileURLWithPath: configPath))
        configuration = try StationConfiguration.load(path: configPath, sections: StationSchema.configurationSections)
        let paths = StationPaths.resolve(configuration, environment: [:])
        try paths.createStateDirectory()
        outbox = Outbox(database: try EdgeDatabase(path: paths.database, migrations: StationSchema.migrations))
        parts = try ReceivingParts.build(configuration: configuration, outbox: outbox, paths: paths, vault: vault)
    }

    /// The outbox sender as `edge sync run` builds it, settling through `router`.
    func sender(_ router: ChangeRouter) throws -> OutboxSender {
        let sync = try #require(configuration.sync)
        let transport = try #require(parts.transport)
        let identity = try #require(parts.identity)
        let tokens = try #require(parts.tokens)
        return StationParts.sender(outbox: outbox, transport: transport, tokens: tokens, settings: sync, identity: identity, router: router,
                                   kinds: StationSchema.outboxKinds)
    }

    /// Another station's GRN, applied on the stand-in directly (RCV-3's "already received").
    func otherStationReceives(_ grn: GRNConfirmRequest) throws {
        let reply = standin.backend.handle(StandinRequest(
            method: "POST", path: APIPath.grnConfirm,
            headers: ["Authorization": "Bearer \(Self.token)", "Idempotency-Key": UUID().uuidString.lowercased(), "Content-Type": "application/json"],
            body: try ContractCoding.encode(grn)))
        guard reply.status == 200 else { throw ReceivingError(.invalidAnswer, "the other station's GRN was answered \(reply.status)") }
    }

    /// Requests the stand-in received on `path` (prefix).
    func requests(_ path: String) -> Int { standin.requests.filter { $0.path.hasPrefix(path) }.count }

    func json<T: Encodable>(_ document: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(document)
    }

    func stop() async {
        parts.close()
        await standin.stop(timeout: .seconds(5))
    }
}
