import EdgeSync
import FoundationEssentials
import Glibc

/// Where the station keeps its state (AGT-3).
///
/// Decision, state directory: $EDGE_STATE_DIR, then `station.state_dir`, then systemd's
/// $STATE_DIRECTORY (StateDirectory= in edge.service), then /var/lib/edge for root, else
/// $XDG_STATE_HOME/edge or ~/.local/state/edge, so `edge run --config samples/edge.json` works
/// for a newcomer without root. Relative paths in edge.json are relative to the file.
/// Vault: $EDGE_VAULT_DIR, `station.vault_dir`, then `<state>/vault`. Vault keys:
/// $EDGE_VAULT_KEY_DIR, `station.vault_key_dir`, then `<state>/vault-keys`: outside the vault
/// directory, so a copy of it carries no keys and crypto-erase holds against it (see
/// `Vault.init`). Database: $EDGE_DATABASE, `sync.database` when set, then `<state>/edge.sqlite`.
public struct StationPaths: Sendable, Equatable {
    public var stateDirectory: String
    public var vaultDirectory: String
    public var vaultKeyDirectory: String
    public var database: String

    public init(stateDirectory: String, vaultDirectory: String, vaultKeyDirectory: String? = nil, database: String) {
        self.stateDirectory = stateDirectory
        self.vaultDirectory = vaultDirectory
        self.vaultKeyDirectory = vaultKeyDirectory ?? stateDirectory + "/vault-keys"
        self.database = database
    }

    public static func resolve(_ configuration: StationConfiguration,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> StationPaths {
        func env(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let base = configuration.path.map { path -> String in
            guard let slash = path.lastIndex(of: "/") else { return "." }
            return slash == path.startIndex ? "/" : String(path[..<slash])
        } ?? "."
        func relative(_ path: String) -> String { path.hasPrefix("/") ? path : base + "/" + path }

        let state = env("EDGE_STATE_DIR") ?? configuration.station.stateDirectory.map(relative)
            ?? env("STATE_DIRECTORY").map { String($0.split(separator: ":").first ?? Substring($0)) }
            ?? (getuid() == 0 ? "/var/lib/edge"
                : (env("XDG_STATE_HOME") ?? ((env("HOME") ?? "/tmp") + "/.local/state")) + "/edge")
        let vault = env("EDGE_VAULT_DIR") ?? configuration.station.vaultDirectory.map(relative) ?? state + "/vault"
        let vaultKeys = env("EDGE_VAULT_KEY_DIR") ?? configuration.station.vaultKeyDirectory.map(relative) ?? state + "/vault-keys"
        let configured = configuration.sync.map(\.database).flatMap { $0 == SyncSettings.defaultDatabase ? nil : relative($0) }
        let database = env("EDGE_DATABASE") ?? configured ?? state + "/edge.sqlite"
        return StationPaths(stateDirectory: state, vaultDirectory: vault, vaultKeyDirectory: vaultKeys, database: database)
    }

    /// The file the running agent keeps its state in for `edge status`.
    public var agentStatusFile: String { stateDirectory + "/agent-status.json" }

    /// Creates the state directory (0700, parents as needed).
    public func createStateDirectory() throws(AgentPartError) {
        var path = ""
        for component in stateDirectory.split(separator: "/", omittingEmptySubsequences: true) {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST {
                throw AgentPartError(.storeFailed, "cannot create the state directory \(stateDirectory): \(String(cString: strerror(errno)))")
            }
        }
    }
}
