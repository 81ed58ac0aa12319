import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeStation
import EdgeStore
import EdgeSync
import FoundationEssentials

/// Where `edge sync` finds its configuration and database.
struct SyncOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("database"), help: ArgumentHelp("The sync database.", valueName: "FILE"))
    var database: String?

    /// The configuration's sync section, or nil when there is none.
    func settings() throws -> SyncSettings? {
        try file().sync
    }

    /// The whole configuration; an error is one line on stderr and exit status 2.
    func file() throws -> ConfigFile {
        try ConfigFile.loadForCommand(explicitPath: config)
    }

    /// The settings `edge sync run` needs: a configured backend.
    func requiredSettings(_ file: ConfigFile? = nil) throws -> SyncSettings {
        guard let settings = try (file ?? self.file()).sync else {
            Output.stderr("edge: no sync section in the configuration: set sync.base_url in edge.json (see models/edge-config.schema.json)")
            throw ExitCode(2)
        }
        return settings
    }

    /// --database, then as `edge run` (StationPaths): $EDGE_DATABASE, sync.database, <state dir>/edge.sqlite.
    func databasePath(_ settings: SyncSettings?) -> String {
        if let database { return database }
        var station = (try? StationConfiguration.load(explicitPath: config, sections: ConfigFile.sections)) ?? StationConfiguration()
        station.sync = settings
        return StationPaths.resolve(station).database
    }

    /// Opens the outbox; a store error is one line on stderr and exit status 2.
    func openOutbox(_ settings: SyncSettings?) throws -> Outbox {
        let path = databasePath(settings)
        do {
            return Outbox(database: try EdgeDatabase(path: path, migrations: StationSchema.migrations), limits: settings?.limits ?? .standard)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }
}
