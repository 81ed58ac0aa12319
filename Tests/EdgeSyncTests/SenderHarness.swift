import EdgeContract
import EdgeCore
import EdgeHTTP
import EdgeStandin
import EdgeStore
import EdgeSync
import Foundation
import GRDB
import XCTest

/// A fresh outbox, the stand-in on 127.0.0.1 and the real libcurl transport, for the sender's
/// SYN-7 tests. Each test gets its own of all three.
final class SenderHarness {
    static let token = "station-token-for-tests"

    struct StaticTokens: TokenProvider {
        let tokens: [String: String]
        func token(for credential: String?) async throws -> BearerToken? {
            tokens[credential ?? "station"].map(BearerToken.init)
        }
    }

    let standin: Standin
    let outbox: Outbox
    let transport: CurlTransport
    let directory: URL
    let baseURL: String
    let identity = SyncIdentity(deviceID: "0b8d1f6e-3a52-4c1e-9d7a-5e2f8c9b1a40", appVersion: "0.3.0",
                                osVersion: "Debian GNU/Linux 12 (bookworm)", timezone: "Europe/Berlin")

    init(_ testCase: XCTestCase, seedDemoData: Bool = true) async throws {
        standin = Standin(configuration: StandinConfiguration(staticTokens: [Self.token, "enrollment-token"], seedDemoData: seedDemoData))
        let port = try await standin.start()
        baseURL = "http://127.0.0.1:\(port)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-sender-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outbox = Outbox(database: try EdgeDatabase(path: directory.appendingPathComponent("edge.sqlite").path))
        transport = try CurlTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: 2))
        let standin = standin, transport = transport, directory = directory
        testCase.addTeardownBlock {
            transport.shutdown()
            await standin.stop(timeout: .seconds(5))
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// A sender with fast backoff so retries come due within a test, and no client rate limit
    /// unless a test sets one.
    func sender(tokens: [String: String] = ["station": SenderHarness.token],
                rejections: any CredentialRejectionHandler = HoldingRejectionHandler(),
                configure: (inout SenderConfiguration) -> Void = { _ in },
                connectivity: ConnectivityMonitor = ConnectivityMonitor(),
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) -> OutboxSender {
        var configuration = SenderConfiguration(baseURL: baseURL, identity: identity)
        configuration.backoff = BackoffPolicy(base: 0.01, cap: 0.05)
        configuration.requestsPerMinute = 100_000
        // GRN confirmations as receiving declares them (GRNLedger.outboxKind): the conflict and
        // validation tests send them to the stand-in's GRN endpoint.
        configuration.kinds = [OutboxKind(name: "grn.confirm", path: APIPath.grnConfirm, confirmsDelivery: true)]
        configure(&configuration)
        return OutboxSender(outbox: outbox, transport: transport, tokens: StaticTokens(tokens: tokens),
                            rejections: rejections, configuration: configuration, connectivity: connectivity, wallClock: wallClock)
    }

    @discardableResult
    func enqueue(_ stream: String, kind: String = "scan", _ payload: String = #"{"text":"PO-2026-00042"}"#,
                 credential: String? = nil) throws -> OutboxEntry {
        try outbox.database.dbWriter.write { db in
            try outbox.enqueue(db, stream: stream, kind: kind, payload: Array(payload.utf8), credential: credential)
        }
    }

    var state: SyncState { SyncState(database: outbox.database) }

    func pending() throws -> [OutboxEntry] { try outbox.pendingEntries() }

    func pushes(key: String) -> [RecordedRequest] {
        standin.requests.filter { $0.idempotencyKey == key }
    }
}
