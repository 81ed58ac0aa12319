import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeFCM
import EdgePush
import EdgeStation
import EdgeStore
import EdgeSync
import FoundationEssentials
import Glibc

/// Where `edge push` finds its configuration and database: the same database as the sync core
/// (--database, then as `edge run`: $EDGE_DATABASE, sync.database, <state dir>/edge.sqlite).
struct PushOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("database"), help: ArgumentHelp("The agent's database.", valueName: "FILE"))
    var database: String?

    func load() throws -> ConfigFile {
        try ConfigFile.loadForCommand(explicitPath: config)
    }

    /// The push store; a database or zone error is one line on stderr and exit status 2.
    func openStore(_ file: ConfigFile) throws -> PushStore {
        let path = database ?? StationPaths.resolve(file.station).database
        do {
            return try PushStore(database: try EdgeDatabase(path: path, migrations: StationSchema.migrations), stationZone: StationParts.stationZone(file.push))
        } catch let error as StoreError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        } catch let error as PushError {
            Output.stderr("edge: push.station_zone: \(error.message)")
            throw ExitCode(2)
        }
    }

    /// Runs a push store call; an error is one line on stderr and `status` (1 for refused input,
    /// 2 for the database).
    static func run<T>(_ body: () throws(PushError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .databaseFailure ? 2 : 1)
        }
    }

    static func runAsync<T>(_ body: () async throws(PushError) -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(error.code == .databaseFailure ? 2 : 1)
        }
    }
}
