import ArgumentParser
import EdgeStandin
import FoundationEssentials
import Glibc

/// `edge-standin`: the stand-in backend as a process, for demos and for tests of other processes
/// (the crash test kills the agent, not the server). Loopback only; serves until SIGINT/SIGTERM.
@main
struct EdgeStandinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge-standin",
        abstract: "A STAND-IN backend for tests and demos (not a production server), on 127.0.0.1 only.",
        discussion: """
            Serves the contract in models/openapi.json from memory, with fault injection through the \
            /_standin/ control API when --control is given. Never point a station's production \
            configuration at it.
            """)

    @Option(help: "Port on 127.0.0.1 (0: any free port, printed at start).")
    var port: Int = 8787

    @Option(name: .customLong("token"), help: "A bearer token to accept besides the ones enrollment issues (repeatable).")
    var tokens: [String] = []

    @Flag(help: "Serve the /_standin/ control API (faults, request records, revocation, pulled changes).")
    var control = false

    @Flag(name: .customLong("seed-demo-data"), help: "Load the demo orders, vendor, material, product and linking codes of samples/.")
    var seedDemoData = false

    @Flag(help: "Log every request (info level).")
    var verbose = false

    @Option(name: .customLong("tls-cert"), help: ArgumentHelp("Serve HTTPS (HTTP/2 or HTTP/1.1 by ALPN, as FCM) with this PEM certificate chain; needs --tls-key.", valueName: "FILE"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "FILE"))
    var tlsKey: String?

    @Option(name: .customLong("fcm-service-account"),
            help: ArgumentHelp("Serve the FCM stand-in (/token, /v1/projects/ID/messages:send) for this service-account key file; a file that does not exist is created with a new key (mode 0600).", valueName: "FILE"))
    var fcmServiceAccount: String?

    func validate() throws {
        if (tlsCertificate == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    func run() async throws {
        // An existing key file is trusted as it is; a missing one is generated now and written
        // once the port (part of its token_uri) is known.
        var account: StandinServiceAccount?
        var created = false
        if let path = fcmServiceAccount {
            if FileManager.default.fileExists(atPath: path) {
                account = try StandinServiceAccount.load(path: path)
            } else {
                account = try StandinServiceAccount.generate()
                created = true
            }
        }
        let configuration = StandinConfiguration(
            staticTokens: tokens, controlAPI: control, seedDemoData: seedDemoData, logLevel: verbose ? .info : .notice,
            fcmPublicKeyPEM: try account?.publicKeyPEM(), fcmClientEmail: account?.clientEmail,
            tls: tlsCertificate.flatMap { certificate in tlsKey.map { StandinTLS(certificateChain: certificate, privateKey: $0) } })
        let backend = StandinBackend(configuration: configuration)
        let serviceAccount = account, path = fcmServiceAccount, writeAccount = created
        let application = try buildStandinApplication(configuration: configuration, backend: backend, port: port) { bound in
            print("edge-standin: a STAND-IN backend for tests and demos (not a production server) listening on \(configuration.scheme)://127.0.0.1:\(bound)"
                  + (configuration.tls == nil ? "" : " (HTTP/2 or HTTP/1.1 by ALPN)"))
            if configuration.controlAPI {
                print("edge-standin: control API on (/_standin/faults, /requests, /applied, /revoke, /changes, /approve, /fcm/faults, /fcm/messages)")
            }
            if let serviceAccount, let path {
                if writeAccount {
                    do throws(StandinError) {
                        try serviceAccount.write(to: path, tokenURI: "\(configuration.scheme)://127.0.0.1:\(bound)/token")
                        print("edge-standin: FCM stand-in on; wrote a new service account it trusts to \(path) (project \(serviceAccount.projectID))")
                    } catch {
                        print("edge-standin: \(error.message)")
                    }
                } else {
                    print("edge-standin: FCM stand-in on for the service account in \(path) (\(serviceAccount.clientEmail))")
                }
            }
            // Scripts wait for the banner to learn the port: it must not sit in a pipe buffer (nil: all
            // streams, as stdout itself is not concurrency-safe to name).
            fflush(nil)
        }
        try await application.runService()
    }
}
