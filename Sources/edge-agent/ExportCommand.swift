import ArgumentParser
import EdgeCommandLine
import EdgeCore
import EdgeStation
import EdgeStore
import Glibc

/// `edge export`: the station's non-secret state as one JSON document, for its replacement
/// (issue #16, item 7). What is and is not in it, and why: `StationArchive`.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the station's non-secret state (outbox, enrollments, orders, GRNs, push records, conflicts) for a replacement station.",
        discussion: """
        One JSON document valid against models/station-export.schema.json (format version \(StationArchive.currentVersion)), to --output (mode 0600, replaced atomically) or stdout. Read with `edge import` on the new station.

        Secrets never leave the vault: no token, key or device id is in the document, and the vault is not opened. Credentials appear by name only. The new station keeps its own device id and vault; link its enrollments and store its tokens there again. Photo files (<state dir>/photos) are not in the document: copy that directory beside it.

        Exit status: 0 written; 2 the database or the output file could not be read or written.
        """
    )

    @OptionGroup var options: SyncOptions

    @Option(name: .customLong("output"), help: ArgumentHelp("Write the document here instead of stdout.", valueName: "FILE"))
    var output: String?

    func run() throws {
        let settings = try options.settings()
        let path = options.databasePath(settings)
        // Opening creates a missing database; an export of an empty new one would look like success.
        guard access(path, F_OK) == 0 else {
            Output.stderr("edge: no station database at \(path); pass --config, --database or set EDGE_STATE_DIR")
            throw ExitCode(2)
        }
        let text: String
        do {
            let archive = try StationExport.archive(of: try EdgeDatabase(path: path, migrations: StationSchema.migrations),
                                                    sections: StationSchema.archiveSections, edgeVersion: EdgeVersion.current)
            text = Output.json(archive)
            // Output.json answers "{}" when encoding fails (a NaN time): never hand that over as an export.
            guard text != "{}" else {
                Output.stderr("edge: the station's state could not be written as JSON (a stored time is not a finite number)")
                throw ExitCode(2)
            }
        } catch let error as StoreError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        } catch let error as StationArchiveError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        guard let output else {
            Output.stdout(text)
            return
        }
        do {
            try PosixFile.writeAtomically(Array((text + "\n").utf8), to: output, mode: 0o600)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        Output.stderr("edge: station state exported to \(Output.printable(output))")
    }
}
