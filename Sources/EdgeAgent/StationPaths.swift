import EdgeSync
import FoundationEssentials
import Glibc

/// Where the station keeps its state (AGT-3).
///
/// Decision, state directory: $EDGE_STATE_DIR, then `station.state_dir`, then systemd's
/// $STATE_DIRECTORY (StateDirectory= in edge.service), then /var/lib/edge for root, else
/// $XDG_STATE_HOME/edge or ~/.local/state/edge, so `edge run --config samples/edge.json` works
/// for a newcomer without root. Relative paths in edge.json are relative to the file.
/// Vault: $EDGE_VAULT_DIR, `station.vault_dir`, then `<state>/vault`. Database: $EDGE_DATABASE,
/// `sync.database` when set, then `<state>/edge.sqlite`.
///
/// Decision, vault keys (VLT-6, ENR-10): $EDGE_VAULT_KEY_DIR, `station.vault_key_dir`, then
/// `<state>-keys`, the state directory's sibling (`/var/lib/edge-keys` beside `/var/lib/edge`,
/// which edge.service lists as `StateDirectory=edge edge-keys`; `~/.local/state/edge-keys` for a
/// user). Crypto-erase destroys key generations; keys inside the state directory travelled with
/// every backup of it, so a restored whole-state copy opened erased tokens again. A backup takes
/// the state directory and never the key directory. Keys an older edge kept in the old default,
/// `<state>/vault-keys` (`legacyVaultKeyDirectory`), move to the key directory once, when the
/// vault is opened (`Vault.init`).
public struct StationPaths: Sendable, Equatable {
    public var stateDirectory: String
    public var vaultDirectory: String
    public var vaultKeyDirectory: String
    public var database: String
    /// Where keys lived by default before they moved out of the state directory; nil when that is
    /// the key directory itself (an explicit `vault_key_dir` naming it).
    public var legacyVaultKeyDirectory: String?

    public init(stateDirectory: String, vaultDirectory: String, vaultKeyDirectory: String? = nil, database: String) {
        self.stateDirectory = stateDirectory
        self.vaultDirectory = vaultDirectory
        let keys = vaultKeyDirectory ?? Self.defaultKeyDirectory(forState: stateDirectory)
        self.vaultKeyDirectory = keys
        self.database = database
        let legacy = Self.clean(stateDirectory + "/vault-keys")
        legacyVaultKeyDirectory = legacy == Self.clean(keys) ? nil : legacy
    }

    /// `<state>-keys`: the sibling of the state directory, named from its cleaned path (so a
    /// state directory given as `/srv/edge/.` or `/srv/edge/` still gets `/srv/edge-keys`).
    public static func defaultKeyDirectory(forState stateDirectory: String) -> String {
        clean(stateDirectory) + "-keys"
    }

    /// `path` without `.` components, repeated or trailing slashes, and with `..` folded where it
    /// can be (lexically, as systemd and the shell's `cd -L` read paths).
    static func clean(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            if part == "..", let last = parts.last, last != ".." {
                parts.removeLast()
            } else if part == "..", absolute {
                continue  // /.. is /
            } else {
                parts.append(part)
            }
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
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
        let vaultKeys = env("EDGE_VAULT_KEY_DIR") ?? configuration.station.vaultKeyDirectory.map(relative)
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
