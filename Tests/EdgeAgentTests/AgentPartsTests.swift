@testable import EdgeAgent
import EdgeContract
import EdgeStore
import EdgeCore
import EdgeTestSupport
import Foundation
import Glibc
import GRDB
import Testing

@Suite struct AgentPartsTests {
    @Test func pathsFollowTheDocumentedPrecedence() throws {
        var configuration = try StationConfiguration.parse(Data(#"{"station": {"state_dir": "state", "vault_dir": "/secure/vault"}}"#.utf8))
        configuration.path = "/etc/edge/edge.json"
        let fromFile = StationPaths.resolve(configuration, environment: [:])
        #expect(fromFile == StationPaths(stateDirectory: "/etc/edge/state", vaultDirectory: "/secure/vault", database: "/etc/edge/state/edge.sqlite"))
        let fromEnvironment = StationPaths.resolve(configuration, environment: ["EDGE_STATE_DIR": "/run/x", "EDGE_VAULT_DIR": "/run/v", "EDGE_DATABASE": "/run/db"])
        #expect(fromEnvironment == StationPaths(stateDirectory: "/run/x", vaultDirectory: "/run/v", database: "/run/db"))
        let systemd = StationPaths.resolve(StationConfiguration(), environment: ["STATE_DIRECTORY": "/var/lib/edge:/var/lib/other"])
        #expect(systemd.stateDirectory == "/var/lib/edge" && systemd.vaultDirectory == "/var/lib/edge/vault")
        if getuid() != 0 {
            #expect(StationPaths.resolve(StationConfiguration(), environment: ["HOME": "/home/a"]).stateDirectory == "/home/a/.local/state/edge")
        }
    }

    @Test func linkingCodesAreMaskedToTheirSponsorPrefix() {
        #expect(ScanEventRecorder.mask("AB-7KX-M4PQR") == "AB********")
        #expect(ScanEventRecorder.mask("AB7KXM4PQR") == "AB********")
        #expect(ScanEventRecorder.mask("A") == "*")
    }

    @Test func pulledChangesAreStoredAndRoutedByKind() throws {
        let directory = try TemporaryDirectory()
        let database = try EdgeDatabase(path: directory.path + "/edge.sqlite")
        let router = ChangeRouter()
        let seen = Locked<[String]>([])
        router.onPulled(kinds: ["A", "B"]) { _, changes, _ in seen.withLock { $0.append(contentsOf: changes.map(\.id)) } }
        router.onPulled(kinds: ["C"]) { _, changes, _ in seen.withLock { $0.append("C:" + changes.map(\.id).joined(separator: ",")) } }
        let changes = [SyncChange(id: "1", stream: "s", kind: "B", changedAt: "2026-11-25T12:00:00Z", payload: .null),
                       SyncChange(id: "2", stream: "s", kind: "A", changedAt: "2026-11-25T12:00:00Z", payload: .null),
                       SyncChange(id: "3", stream: "s", kind: "Z", changedAt: "2026-11-25T12:00:00Z", payload: .null),
                       SyncChange(id: "4", stream: "s", kind: "B", changedAt: "2026-11-25T12:00:00Z", payload: .null)]
        let state = SyncState(database: database)
        try database.dbWriter.write { db in try router.apply(db, changes, state: state, now: 0) }
        // Per kind in the order kinds first appear; every change stored, routed or not.
        #expect(seen.withLock { $0 } == ["1", "4", "2"])
        #expect(try SyncState(database: database).pulledChangeCount() == 4)
    }

    /// The fact stream: a subscriber hears what is published after it subscribed, in order, and
    /// its stream ends when the station finishes; a dropped subscription is forgotten.
    @Test func factsReachEverySubscriberFromTheirSubscriptionOn() async throws {
        struct Told: StationFact, Equatable { let n: Int }
        let facts = StationFacts()
        facts.publish(Told(n: 0))
        let first = facts.subscribe()
        var dropped: StationFacts.Subscription? = facts.subscribe()
        #expect(facts.subscriberCount == 2)
        dropped = nil
        #expect(dropped == nil && facts.subscriberCount == 1)
        for n in 1...3 { facts.publish(Told(n: n)) }
        facts.finish()
        var heard: [Int] = []
        for await fact in first { heard.append((fact as? Told)?.n ?? -1) }
        #expect(heard == [1, 2, 3])
        #expect(facts.subscriberCount == 0)
    }

    @Test func systemdGetsItsDatagrams() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/notify"
        let socket = try NotifySocket(path: path)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path])
        #expect(notifier.notify("READY=1"))
        #expect(socket.received() == ["READY=1"])
        #expect(!SystemdNotifier(environment: [:]).notify("READY=1"))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"]) == nil || getpid() == 1)
    }

    @Test func logValuesCannotForgeLinesOrReorderText() {
        #expect(KeyValueLogHandler.quoted("plain") == "plain")
        #expect(KeyValueLogHandler.quoted("two words") == "\"two words\"")
        #expect(KeyValueLogHandler.quoted("a\nlevel=error msg=forged") == "\"a?level=error msg=forged\"")
        #expect(KeyValueLogHandler.quoted("\u{202E}txt.exe") == "?txt.exe")
        #expect(KeyValueLogHandler.quoted("say \"hi\"") == #""say \"hi\"""#)
    }

    /// AGT-9: /metrics says what runs, Prometheus' build-info way (a gauge at 1 whose labels are
    /// the version and the commit), read back by prometheus_client's parser.
    @Test func metricsNameTheBuild() throws {
        let samples = try PythonCheck.prometheusSamples(Data(AgentMetrics().render()))
        let build = BuildInfo.current
        #expect(samples[#"edge_build_info{commit="\#(build.commit)",version="\#(build.version)"}"#] == 1, "\(samples)")
        #expect(build.version == BuildInfo.packageVersion && build.version == StationParts.appVersion)
    }

    /// Issue #30 item 5: SQLite's own memory is in /metrics (the soak subtracts it from RSS),
    /// read when scraped. (Other tests open and close databases in parallel, so only "some".)
    @Test func metricsSaySQLitesMemory() throws {
        let metrics = AgentMetrics()
        let directory = try TemporaryDirectory(prefix: "edge-sqlite-memory")
        let database = try EdgeDatabase(path: directory.path + "/edge.sqlite")
        try database.dbWriter.read { db in _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM outbox") }
        let samples = try PythonCheck.prometheusSamples(Data(metrics.render()))
        let bytes = try #require(samples["edge_sqlite_memory_bytes{}"], "\(samples.keys.sorted())")
        #expect(bytes > 0)
    }

    /// A block held shows in malloc's in-use figure, and /metrics says both of malloc's figures.
    /// 256 MB, mmapped by malloc and never touched: no resident cost, and far beyond what tests
    /// running beside this one free meanwhile.
    @Test func metricsSayMallocsHeap() throws {
        let before = ProcessHeap.current()
        let block = try #require(malloc(256 << 20))
        defer { free(block) }
        let held = ProcessHeap.current()
        #expect(held.inUse - before.inUse > 200 << 20, "\(before) -> \(held)")
        let samples = try PythonCheck.prometheusSamples(Data(AgentMetrics().render()))
        let inUse = try #require(samples["edge_malloc_in_use_bytes{}"], "\(samples.keys.sorted())")
        #expect(inUse > Double(256 << 20))
        #expect(samples["edge_malloc_free_retained_bytes{}"] != nil)
    }
}
