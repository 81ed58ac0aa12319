import EdgeCore
import FoundationEssentials
import Glibc
import ServiceLifecycle

/// What the running agent publishes for `edge status` (AGT-7): its parts, cameras and vault, in
/// `<state>/agent-status.json`, rewritten (temporary file + rename) at most once a second when
/// something changed, and once more as stopped at shutdown.
///
/// Decision: a file rather than a query to the agent, so `edge status` works the same whether
/// the agent runs, hangs or is gone (the pid tells which), and needs no socket or port.
public struct AgentStatusFile: Codable, Sendable, Equatable {
    public var pid: Int32
    public var running: Bool
    public var startedAt: Double
    public var updatedAt: Double
    public var configuration: String?
    public var vaultBackend: String?
    public var vaultReason: String?
    public var vaultError: String?
    /// A TPM that was present but refused (the vault then uses the key file).
    public var vaultWarning: String?
    public var snapshot: AgentState.Snapshot
    /// The edge that runs (AGT-9): after an upgrade `edge status` tells the installed binary from
    /// the one still running until the restart. Optional: a file an older edge wrote has none.
    public var edge: BuildInfo? = .current

    public static func read(_ path: String) -> AgentStatusFile? {
        guard let bytes = try? PosixFile.readAll(path: path, maxBytes: 1 << 20, allowSpecial: false) else { return nil }
        return try? JSONDecoder().decode(AgentStatusFile.self, from: Data(bytes))
    }

    /// Whether the process that wrote it still runs.
    public var processAlive: Bool {
        running && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Not fsynced: status is advisory and rewritten every second; the database holds the truth.
    /// Mode 0644: `edge status` may run as another user. Throws when the disk refuses (the
    /// writer tries again a second later and tells the storage monitor).
    func write(to path: String) throws(PosixFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { return }
        try PosixFile.writeAtomically(Array(data), to: path, mode: 0o644, durable: false)
    }
}

/// Keeps `AgentStatusFile` current while the agent runs.
struct AgentStatusService: Service {
    /// What `storage` calls the file's place.
    static let holds = "status file"

    let path: String
    let state: AgentState
    let vault: StationVaultAccess
    let storage: StorageMonitor
    let base: AgentStatusFile

    func run() async throws {
        var last: AgentState.Snapshot?
        var file = base
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let snapshot = state.current
            if snapshot != last {
                // The vault part's change (it opened late) is a snapshot change: its lines follow.
                vault.describe(into: &file)
                file.snapshot = snapshot
                file.updatedAt = Date().timeIntervalSince1970
                // A full or read-only disk (issue #30): tried again every second until it is
                // written, so `edge status` catches up without a restart when space returns.
                if write(file) { last = snapshot }
            }
            await Task.sleepUnlessShuttingDown(for: .seconds(1))
        }
        file.snapshot = state.current
        file.running = false
        file.updatedAt = Date().timeIntervalSince1970
        _ = write(file)
    }

    private func write(_ file: AgentStatusFile) -> Bool {
        do {
            try file.write(to: path)
            storage.succeeded(Self.holds)
            return true
        } catch {
            storage.failed(Self.holds, error)
            return false
        }
    }
}
