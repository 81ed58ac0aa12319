import ArgumentParser
import EdgeFCM
import EdgePush
import EdgeStore
import EdgeSync
import FoundationEssentials
import Glibc

/// Where `edge push` finds its configuration and database: the same database as the sync core
/// (--database, $EDGE_DATABASE, sync.database, /var/lib/edge/edge.sqlite).
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
        let env = ProcessInfo.processInfo.environment["EDGE_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
        let path = database ?? env ?? file.sync?.database ?? SyncSettings.defaultDatabase
        do {
            return try PushStore(database: try EdgeDatabase(path: path), stationZone: Self.stationZone(file.push))
        } catch let error as StoreError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        } catch let error as PushError {
            Output.stderr("edge: push.station_zone: \(error.message)")
            throw ExitCode(2)
        }
    }

    /// push.station_zone, else the system's zone: the target of /etc/localtime below a zoneinfo
    /// directory (how Debian sets it), else /etc/timezone, else UTC.
    static func stationZone(_ settings: PushSettings?) -> String {
        if let zone = settings?.stationZone { return zone }
        var buffer = [CChar](repeating: 0, count: 512)
        let n = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if n > 0 {
            let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.range(of: "zoneinfo/") {
                let name = String(target[range.upperBound...])
                if (try? TimeZoneDatabase.validate(name)) != nil { return name }
            }
        }
        if let data = FileManager.default.contents(atPath: "/etc/timezone"),
           let name = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
           (try? TimeZoneDatabase.validate(name)) != nil {
            return name
        }
        return "UTC"
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
