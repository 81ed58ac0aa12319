import EdgeCommandLine
import EdgeCore
import EdgePayloads
import EdgeScanning
import Glibc

/// `edge`, the command operators, units and scripts run: a front that decodes still images itself
/// and hands every other command to edge-agent, the station's whole command line, by exec (same
/// process, same PID, same arguments: systemd's MAINPID, NOTIFY_SOCKET and signals reach the agent
/// unchanged).
///
/// Decision (issue #32 item 3, SCN-12): scripts start `edge scan --image FILE` once per file, and a
/// process that carries the kiosk's NIO, BoringSSL and Hummingbird, the store's SQLite and the
/// metrics pays for them at every start: relocations of a 180 MB binary and ~30 libraries before
/// main. This binary holds imaging, scanning and payloads only (about 20 MB; libstdc++ linked in,
/// Package.swift says why), and Benchmarks/start-cost.py measures it against zbarimg.
///
/// It decodes here only what it can answer exactly as edge-agent would: the forms
/// `ScanRequest.fastPath` accepts, with no configuration file to apply (no --config, no
/// $EDGE_CONFIG, no /etc/edge/edge.json). A station's file is checked whole before a scan, as
/// `edge run` checks it, and only edge-agent knows every section; help, usage errors, cameras and
/// options the fast path does not take are edge-agent's too, so every message has one author.
@main
enum EdgeFront {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "scan", let scan = imageScan(Array(arguments.dropFirst())) {
            exit(scan.run())
        }
        execAgent()
    }

    /// The scan to run here, or nil when edge-agent must answer.
    static func imageScan(_ arguments: [String]) -> ImageScan? {
        guard let request = ScanRequest.fastPath(arguments),
              ConfigurationFileLocation.resolve(explicitPath: request.config, environment: ConfigurationFileLocation.environment) == nil,
              (request.budgetMilliseconds ?? 0) >= 0,
              let lists = try? request.parsedLists() else { return nil }
        // No file: edge.json's defaults, which is what edge-agent applies without one.
        let scanning = request.scanning(over: ScanningSettings(), formats: lists.formats)
        return try? ImageScan(images: request.images, options: request.imageOptions(scanning: scanning, passes: lists.passes),
                              classifier: PayloadClassifier(sponsors: .empty), printer: ResultPrinter(json: request.json))
    }

    /// Where edge-agent is: beside this binary (a build directory), else in ../libexec/edge (the
    /// Debian package: /usr/bin/edge and /usr/libexec/edge/edge-agent). Never from $PATH or the
    /// environment: the agent opens the vault, and what runs as it must be what was installed.
    static func agentCandidates() -> [String] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return ["/usr/libexec/edge/edge-agent"] }
        let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return [directory + "/edge-agent", directory + "/../libexec/edge/edge-agent"]
    }

    /// Replaces this process with edge-agent; returns only to exit 2 with why it could not.
    static func execAgent() -> Never {
        let candidates = agentCandidates()
        var failure: (path: String, errno: Int32)? = nil
        for path in candidates {
            execv(path, CommandLine.unsafeArgv)
            // Not there: try the next place. Anything else (not executable, a bad binary) is the
            // answer: a broken install must say so, not fall through to another copy.
            if errno != ENOENT { failure = (path, errno); break }
        }
        let reason = failure.map { "\($0.path): \(String(cString: strerror($0.errno)))" }
            ?? "not found at \(candidates.joined(separator: " or "))"
        Output.stderr("edge: cannot start edge-agent, which runs every command but `edge scan --image`: \(reason)")
        exit(2)
    }
}
