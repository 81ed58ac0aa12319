import EdgeCore
import EdgeFCM
import EdgeFCMTransport
import EdgePush
import EdgeStandin
import EdgeStore
import EdgeHTTP
import Foundation
import Synchronization
import EdgeTestSupport
import XCTest

/// Wall-clock seconds plus an offset a test moves, so token expiry can be tested without waiting
/// while the stand-in still judges the JWT by real time.
final class TestClock: Sendable {
    private let offset = Mutex<Double>(0)
    func advance(_ seconds: Double) { offset.withLock { $0 += seconds } }
    var now: Double { Date().timeIntervalSince1970 + offset.withLock { $0 } }
}

/// A key pair from the openssl CLI, the FCM stand-in on 127.0.0.1 configured with its public
/// key, a service account whose token_uri is the stand-in's, and a real CurlTransport.
final class FCMHarness {
    static let clientEmail = "edge-relay@prokure-test.iam.gserviceaccount.com"
    static let projectID = "prokure-test"

    let standin: Standin
    /// The relay's own transport (FCMTransport), as `StationParts.pushRelay` builds it.
    let transport: FCMTransport
    let account: ServiceAccount
    let baseURL: String
    let clock = TestClock()
    let tool: OpenSSLTool
    let keyPair: (privatePEM: [UInt8], publicPEM: [UInt8])
    /// With `tls`, the stand-in serves HTTPS and HTTP/2 (ALPN), as FCM does.
    let certificates: TestCertificates?

    init(_ testCase: XCTestCase, tokenLifetime: Int = 3600, tls: Bool = false) async throws {
        tool = try OpenSSLTool()
        keyPair = try tool.generateKeyPair()
        let certificates = tls ? try TestCertificates() : nil
        self.certificates = certificates
        standin = Standin(configuration: StandinConfiguration(
            fcmPublicKeyPEM: keyPair.publicPEM, fcmClientEmail: Self.clientEmail, fcmTokenLifetime: tokenLifetime,
            tls: certificates.map { StandinTLS(certificateChain: $0.serverCertificate, privateKey: $0.serverKey) }))
        try await standin.start()
        baseURL = try XCTUnwrap(standin.baseURL)
        account = try ServiceAccount(json: Self.accountJSON(privatePEM: keyPair.privatePEM, tokenURI: baseURL + "/token"))
        transport = try FCMTransport(options: TransportOptions(connectTimeout: 2, totalTimeout: 10, caFile: certificates?.caCertificate))
        let standin = standin, transport = transport, tool = tool
        testCase.addTeardownBlock {
            transport.shutdown()
            await standin.stop(timeout: .seconds(5))
            tool.remove()
        }
    }

    static func accountJSON(privatePEM: [UInt8], tokenURI: String, email: String = clientEmail) throws -> [UInt8] {
        let object: [String: String] = [
            "type": "service_account", "project_id": projectID, "private_key_id": "0123abcd",
            "private_key": String(decoding: privatePEM, as: UTF8.self), "client_email": email, "client_id": "1",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": tokenURI,
        ]
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    func tokenSource(account: ServiceAccount? = nil) -> OAuthTokenSource {
        let clock = clock
        // The test clock is both the wall and the boot clock unless a test steps one alone.
        return OAuthTokenSource(account: account ?? self.account, transport: transport, clock: { clock.now },
                                bootClock: { BootInstant(bootID: "test", seconds: clock.now) })
    }

    /// An FCM client over the harness's transport, or over `transport` (a `CountingTransport`
    /// around it) for the messages; tokens always come over the harness's own.
    func client(tokens: OAuthTokenSource? = nil, transport: (any HTTPTransport)? = nil) -> FCMClient {
        let clock = clock
        return FCMClient(configuration: FCMClientConfiguration(endpoint: baseURL), transport: transport ?? self.transport,
                         tokens: tokens ?? tokenSource(), clock: { clock.now }, random: { 0.5 })
    }
}

/// A transport that counts the requests open at once through it: the sender's in-flight cap
/// (PSH-10) seen from the client side.
final class CountingTransport: HTTPTransport {
    private let inner: any HTTPTransport
    private let counts = Mutex((open: 0, most: 0, total: 0))

    init(_ inner: any HTTPTransport) {
        self.inner = inner
    }

    /// The most requests that were open at once.
    var most: Int { counts.withLock { $0.most } }
    /// Every request sent through it.
    var total: Int { counts.withLock { $0.total } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        counts.withLock { counts in
            counts.total += 1
            counts.open += 1
            counts.most = max(counts.most, counts.open)
        }
        defer { counts.withLock { $0.open -= 1 } }
        return try await inner.send(request)
    }
}

/// A fresh push store in a temporary database.
func makePushStore() throws -> (PushStore, URL) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-fcm-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let database = try EdgeDatabase(path: directory.appendingPathComponent("edge.sqlite").path)
    return (try PushStore(database: database, stationZone: "UTC"), directory)
}
