import ArgumentParser
import EdgeCommandLine
import EdgeCore
import EdgeStation
import EdgeStore
import Glibc

/// `edge import FILE`: restores what `edge export` wrote on the station being replaced, in one
/// transaction (issue #16, item 7). Validation, id mapping and re-import rules: `StationImport`.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore a replaced station's state from `edge export`'s document; importing it again adds nothing.",
        discussion: """
        The document is checked whole before anything is written (size, format version \(StationArchive.currentVersion), models/station-export.schema.json's shape, references), then applied in one transaction: a refusal writes nothing. Rows the station already has are counted, not duplicated; rows that disagree with the station's (an entry with the same idempotency key and another payload, a sequence in use) refuse the whole import. Import into the new station before it queues its own work.

        Secrets are not imported: this station keeps its own device id and vault. Link its enrollments and put its tokens in its vault again (`edge enroll`, `edge vault put`).

        Exit status: 0 imported (or nothing new); 1 the document was refused (not an export, a newer version, invalid, too large, conflicting with this station, outbox full); 2 the file or the database could not be read or written.
        """
    )

    @OptionGroup var options: SyncOptions

    @Argument(help: ArgumentHelp("The document `edge export` wrote; - reads standard input.", valueName: "FILE"))
    var file: String

    @Flag(name: .customLong("json"), help: "Print what was imported as JSON.")
    var json = false

    func run() throws {
        let settings = try options.settings()
        let path = options.databasePath(settings)
        let limits = StationArchiveLimits.standard
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.readAll(path: file == "-" ? "/dev/stdin" : file, maxBytes: limits.maxDocumentBytes)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .tooLarge ? 1 : 2)
        }
        let report: StationImportReport
        do {
            let archive = try StationImport.decode(bytes, sections: StationSchema.archiveSections, limits: limits)
            try Self.createDirectory(of: path)
            report = try StationImport.apply(archive, to: try EdgeDatabase(path: path, migrations: StationSchema.migrations),
                                         sections: StationSchema.archiveSections, outboxLimits: settings?.limits ?? .standard)
        } catch let error as StationArchiveError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .storeFailure ? 2 : 1)
        } catch let error as StoreError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        if json {
            Output.stdout(Output.json(report))
            return
        }
        for table in report.tables {
            Output.stdout("\(table.table): \(table.imported) imported, \(table.alreadyPresent) already present")
        }
        Output.stdout(report.imported == 0 ? "nothing new to import into \(path)" : "imported \(report.imported) rows into \(path)")
    }

    /// A new station may not have its state directory yet (0700, as `edge run` makes it).
    private static func createDirectory(of database: String) throws {
        var path = ""
        for component in PosixFile.directoryName(database).split(separator: "/", omittingEmptySubsequences: true).map(String.init) {
            path += (path.isEmpty && !database.hasPrefix("/") ? "" : "/") + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                Output.stderr("edge: cannot create the directory \(path): \(PosixFile.describe(errno: errno))")
                throw ExitCode(2)
            }
        }
    }
}
