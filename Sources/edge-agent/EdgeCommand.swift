import ArgumentParser
import EdgeCommandLine
import EdgeCore
import EdgeCrypto

/// `edge`'s whole command line, as the edge-agent executable: the `edge` front (EdgeFront.swift)
/// execs it with its own arguments for everything but the still-image scans it decodes itself, so
/// help and usage still say `edge`. One file per subcommand.
@main
struct EdgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract: "Scanning-station agent: decode barcodes, say what they are, keep secrets, sync with the backend.",
        // `edge --version`: "0.4.0 (commit 35bdbe3a1b2c)" (AGT-9); packaging/build-deb reads the
        // Debian version from its first word.
        version: BuildInfo.current.description,
        subcommands: [RunCommand.self, StatusCommand.self, ScanCommand.self, VaultCommand.self, DeviceIDCommand.self, SyncCommand.self, PushCommand.self, CamerasCommand.self, EnrollCommand.self, EnrollmentsCommand.self, ReceiveCommand.self, LookupCommand.self, ExportCommand.self, ImportCommand.self, ConfigCommand.self]
    )

    /// Decision (SCN-12): `edge scan` goes straight to its command. Scripts start it once per
    /// file, and building the whole command tree first costs every scan ~10 M instructions of
    /// reflection over commands it will not run (callgrind); the output is the same.
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ScanCommand.configuration.commandName {
            let rest = Array(arguments.dropFirst())
            guard let request = ScanRequest.fastPath(rest) else { return ScanCommand.main(rest) }
            do {
                try request.validate()
                try request.run()
            } catch {
                ScanCommand.exit(withError: error)
            }
        } else if arguments == ["--version"] {
            // Decision (issue #32): the version without the command tree too (~26 M instructions
            // of reflection, callgrind); the same line swift-argument-parser prints.
            print(BuildInfo.current.description)
        } else {
            if let command = arguments.first, secretHolding.contains(command) { closeCoreDumps() }
            main(arguments)
        }
    }

    /// Decision (issue #16): the commands that open the vault or hold a token (`run`, `vault`,
    /// `enroll`, `enrollments`, `push`, `sync`, `receive`, `lookup`) make the process non-dumpable (PR_SET_DUMPABLE
    /// 0) here, once, before parsing: no core file, no ptrace or /proc/<pid>/mem reader of the
    /// same user, for the process's whole life. Here rather than where a Vault is opened because
    /// secrets also arrive on stdin and from the backend before or without a vault, and one place
    /// cannot be missed by a new subcommand of these. `scan`, `status`, `cameras` and `device-id`
    /// hold no secret and stay debuggable. A failure stops the command: better no secret-holding
    /// process than one that may dump.
    static let secretHolding: Set<String> = ["run", "vault", "enroll", "enrollments", "push", "sync", "receive", "lookup"]

    private static func closeCoreDumps() {
        do {
            try DumpProtection.disableForProcess()
        } catch {
            Output.stderr("edge: \(error.message)")
            exit(withError: ExitCode(1))
        }
    }
}
