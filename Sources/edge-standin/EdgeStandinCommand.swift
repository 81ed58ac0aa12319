import ArgumentParser
import EdgeStandin
#if canImport(Glibc)
import Glibc
#endif

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

    func run() async throws {
        let configuration = StandinConfiguration(
            staticTokens: tokens, controlAPI: control, seedDemoData: seedDemoData, logLevel: verbose ? .info : .notice)
        let backend = StandinBackend(configuration: configuration)
        let application = try buildStandinApplication(configuration: configuration, backend: backend, port: port) { bound in
            print("edge-standin: a STAND-IN backend for tests and demos (not a production server) listening on http://127.0.0.1:\(bound)")
            if configuration.controlAPI {
                print("edge-standin: control API on (/_standin/faults, /requests, /applied, /revoke, /changes, /approve)")
            }
            #if canImport(Glibc)
            // Scripts wait for the banner to learn the port: it must not sit in a pipe buffer (nil: all
            // streams, as stdout itself is not concurrency-safe to name).
            fflush(nil)
            #endif
        }
        try await application.runService()
    }
}
