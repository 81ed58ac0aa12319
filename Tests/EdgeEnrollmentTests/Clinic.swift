import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeEnrollment
import EdgeHTTP
import EdgePayloads
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeSync
import EdgeTestSupport
import EdgeVault
import Foundation
import Logging
import Synchronization

/// A clinic station for the tests: the stand-in portal on 127.0.0.1 (sponsors AB and CD both
/// point at it), a real database and keyfile vault in a temporary directory, libcurl, and every
/// log line kept so tests can search them for codes and tokens.
final class Clinic: @unchecked Sendable, Stoppable {
    static let stationToken = "clinic-station-token"

    let directory: TemporaryDirectory
    let standin: Standin
    let baseURL: String
    let database: EdgeDatabase
    let outbox: Outbox
    let vault: StationVault
    let logs = LogLines()
    var settings = EnrollmentSettings()

    init() async throws {
        directory = try TemporaryDirectory(prefix: "edge-clinic")
        standin = Standin(configuration: StandinConfiguration(staticTokens: [Self.stationToken], controlAPI: true, seedDemoData: true))
        baseURL = "http://127.0.0.1:\(try await standin.start())"
        database = try EdgeDatabase(path: directory.path + "/edge.sqlite", migrations: StationSchema.migrations)
        outbox = Outbox(database: database)
        vault = StationVault(try Vault(directory: directory.path + "/vault", backend: .keyfile))
        // Fast enough for tests, the same code paths: ENR-6's retries 50 ms apart; a 5 s timeout,
        // which a loaded CI machine never reaches by accident (the timeout test sets its own).
        settings.retryDelay = 0.05
        settings.requestTimeout = 5
    }

    func sponsors() throws -> SponsorTable {
        try SponsorTable(entries: [SponsorEntry(prefix: "AB", sponsorID: "sponsor-ab", backendURL: baseURL),
                                   SponsorEntry(prefix: "CD", sponsorID: "sponsor-cd", backendURL: baseURL)])
    }

    func identity() throws -> SyncIdentity {
        SyncIdentity.current(deviceID: try vault.deviceID(), appVersion: "test")
    }

    /// A fresh `Enrollments` over the same files: what a restarted process gets.
    func enrollments(clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                     bootClock: @escaping @Sendable () -> BootInstant = BootClock.now) throws -> Enrollments {
        let transport = try CurlTransport(options: TransportOptions(connectTimeout: min(2, settings.requestTimeout), totalTimeout: settings.requestTimeout))
        let logs = self.logs
        return Enrollments(outbox: outbox, vault: vault, portal: PortalClient(transport: transport, identity: try identity(), settings: settings),
                           sponsors: try sponsors(), logger: Logger(label: "edge.enrollment") { _ in LogLines.Handler(lines: logs) }, clock: clock,
                           bootClock: bootClock)
    }

    /// The outbox sender as the agent builds it, with `enrollments` deciding rejected tokens.
    func sender(_ enrollments: Enrollments) throws -> OutboxSender {
        var configuration = SenderConfiguration(baseURL: baseURL, identity: try identity())
        configuration.backoff = BackoffPolicy(base: 0.01, cap: 0.05)
        let router = CredentialRejectionRouter()
        router.register(prefix: Enrollment.credentialPrefix, enrollments)
        return OutboxSender(outbox: outbox, transport: try CurlTransport(options: TransportOptions(connectTimeout: 1, totalTimeout: 5)),
                            tokens: VaultTokenProvider(vault: vault, stationSecret: "sync.token"), rejections: router,
                            configuration: configuration, logger: Logger(label: "edge.sync") { _ in LogLines.Handler(lines: self.logs) })
    }

    /// Requests the portal received on `path`.
    func requests(_ path: String) -> [RecordedRequest] { standin.requests.filter { $0.path == path } }

    /// What the stand-in applied from the station's sync pushes, by kind.
    func pushed(kind: String) -> [SyncPushRequest] { standin.backend.pushes.filter { $0.kind == kind } }

    func stop() async { await standin.stop(timeout: .seconds(5)) }
}

/// Every log line (message and metadata) a test's loggers wrote.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined(separator: "\n") }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            let all = metadata.merging(explicit ?? [:]) { _, new in new }
            let text = "\(level) \(message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.lines.withLock { $0.append(text) }
        }
    }
}
