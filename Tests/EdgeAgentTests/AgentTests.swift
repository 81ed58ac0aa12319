import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgePush
import EdgeStandin
import EdgeStore
import EdgeTestSupport
import EdgeVault
import Foundation
import FoundationNetworking
import GRDB
import Logging
import ServiceLifecycle
import Testing

/// The whole station through `buildAgent`, no CLI in between: frames replayed from the sample
/// images, the real store, vault, libcurl and the stand-in on 127.0.0.1 (sync and FCM).
@Suite(.serialized) struct AgentTests {
    static let token = "agent-test-station-token"

    /// A stand-in with FCM, a vault holding the station token and the service account, and an
    /// edge.json naming them: what a station has after provisioning. The agent alone
    /// (`buildAgent`, no role capabilities): these tests are about its own parts.
    final class Station: @unchecked Sendable, Stoppable {
        let test: TestStation
        var directory: TemporaryDirectory { test.directory }
        var standin: Standin { test.standin }
        var configPath: String { test.configPath }
        var baseURL: String { test.baseURL }

        init(cameras: String) async throws {
            test = try await TestStation(role: "dock", name: "dock-1", cameras: cameras,
                                         station: #""metrics": "127.0.0.1:0", "repeat_gap": 0.5"#,
                                         sections: #"""
                                             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "https://s1.portal.invalid/api"}],
                                             "push": {"endpoint": "{base}", "station_zone": "UTC", "receiving_team": ["dock-lead"]}
                                             """#, token: AgentTests.token, fcm: true, prefix: "edge-agent")
        }

        func configuration() throws -> StationConfiguration { try test.configuration() }

        func agent() throws -> Agent { try test.agent() }

        func stop() async { await test.stop() }
    }

    static func samples(_ names: String...) -> String {
        names.map { PackageFiles.path("samples/" + $0) }.joined(separator: ",")
    }

    @Test func cameraReadsBecomeEventsAppliedOnceAndNotificationsReachFCM() async throws {
        try await withStopping(Station(cameras: #"[{"name": "dock", "device": "replay:\#(Self.samples("po-code128.png", "linking-code.png", "product-ean13.png"))", "fps": 20}]"#)) { station in
            let agent = try station.agent()
            let running = Task { try await agent.run() }

            // The PO and the product sync (default policy); the linking code is kept locally, masked.
            try await eventually("a PO and a product scan event applied on the stand-in") {
                let kinds = station.standin.backend.pushes.filter { $0.kind == ScanEventRecorder.kind }
                return Set(kinds.compactMap { $0.payload["class"]?.stringValue }) == ["purchase-order", "product"]
            }
            try await eventually("the outbox drained") { try agent.outbox.status().depth == 0 }
            // The filter must see the pushes awaited above, or the check below checks nothing.
            let pushes = station.standin.applied.filter { $0.path == APIPath.syncPush }
            #expect(pushes.count >= 2)
            for record in pushes {
                #expect(record.applications == 1)
            }
            // The linking-code sample is a QR too large for the region finder: the camera preset reads
            // it with its whole-frame pass, which runs at most every 200 ms, so it may come a cycle later.
            try await eventually("the linking code recorded as a scan event") {
                try agent.events.recent(limit: 50).contains { $0.className == "linking-code" }
            }
            let events = try agent.events.recent(limit: 50)
            let linking = try #require(events.first { $0.className == "linking-code" })
            #expect(linking.text == nil)
            #expect(linking.masked.hasPrefix("AB") && linking.masked.dropFirst(2).allSatisfy { $0 == "*" })
            #expect(linking.payloadKey?.count == 32)
            #expect(linking.outboxID == nil)
            let po = try #require(events.first { $0.className == "purchase-order" })
            #expect(po.text == "PO-2026-00042" && po.outboxID != nil && po.latencyMs > 0)
            // No linking code in clear anywhere the backend was sent.
            let sent = station.standin.backend.pushes.map { String(decoding: (try? ContractCoding.encode($0)) ?? [], as: UTF8.self) }
            #expect(!sent.contains { $0.contains("linking-code") && $0.contains("\"text\"") })

            // A notification pulled by the running agent goes out through the relay (PSH-1, AGT-5).
            try registerDevice(agent, user: "ana", token: "fcm-token-ana")
            _ = station.standin.backend.appendChange(stream: "push:ana", kind: "NOTIFICATION", payload: .object([
                "user_id": .string("ana"), "type": .string("APPROVAL_PENDING"), "priority": .string("HIGH"),
                "title": .string("Approval needed: PO-2026-00077"), "body": .string("Office chairs"), "deep_link": .string("/approvals/77")]))
            agent.wakePuller()
            try await eventually("the FCM stand-in received the pulled notification") {
                station.standin.backend.fcm.received.contains { $0.status == 200 && $0.message?["token"]?.stringValue == "fcm-token-ana" }
            }

            // The app opened it: its receipt comes back through the backend as a pulled change and
            // reaches the durable record (PSH-11); a repeated or late DELIVERED changes nothing.
            let sentMessage = try #require(station.standin.backend.fcm.received.first { $0.status == 200 && $0.message?["token"]?.stringValue == "fcm-token-ana" })
            let notificationID = try #require(sentMessage.message?["data"]?["notification_id"]?.stringValue)
            // Sent as the relay records it: FCM's 200 comes before the relay commits SENT, and a
            // receipt for a record not yet sent is refused (PSH-11), which a loaded machine showed
            // once. An app cannot open what the relay has not finished sending.
            try await eventually("the record is SENT") {
                try await agent.outbox.database.dbWriter.read { db in
                    try String.fetchOne(db, sql: "SELECT status FROM push_notifications WHERE id = ?", arguments: [Int64(notificationID) ?? -1])
                } == "SENT"
            }
            for status in ["OPENED", "OPENED", "DELIVERED"] {
                _ = station.standin.backend.appendChange(stream: "push:ana", kind: "PUSH_RECEIPT", payload: .object([
                    "notification_id": .string(notificationID), "status": .string(status)]))
            }
            agent.wakePuller()
            try await eventually("the record is OPENED") {
                try await agent.outbox.database.dbWriter.read { db in
                    try String.fetchOne(db, sql: "SELECT status FROM push_notifications WHERE id = ?", arguments: [Int64(notificationID) ?? -1])
                } == "OPENED"
            }

            // /metrics in the Prometheus text format, read by prometheus_client's parser.
            let address = try #require(agent.state.current.metricsAddress)
            let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)/metrics")!)
            let samples = try PythonCheck.prometheusSamples(body)
            #expect((samples[#"edge_frame_to_event_seconds_count{camera="dock"}"#] ?? 0) >= 2)
            #expect((samples[#"edge_frames_total{camera="dock"}"#] ?? 0) > 0)
            #expect(samples[#"edge_camera_up{camera="dock"}"#] == 1)
            #expect((samples[#"edge_sync_sends_total{answer="sent"}"#] ?? 0) >= 2)
            #expect((samples[#"edge_push_sends_total{result="sent"}"#] ?? 0) >= 1)
            #expect(samples[#"edge_push_receipts_total{status="opened"}"#] == 1)
            #expect((samples[#"edge_push_intake_total{kind="notification"}"#] ?? 0) >= 1)
            #expect((samples[#"edge_sync_pulls_total{result="ok"}"#] ?? 0) >= 1)

            // edge status's document, against its schema.
            try await eventually("the status file shows the camera up") {
                AgentStatusFile.read(agent.paths.agentStatusFile)?.snapshot.cameras["dock"]?.up == true
            }
            let status = StationStatus.collect(try station.configuration(), environment: [:])
            #expect(status.agent.running)
            #expect(status.missing.isEmpty, "\(status.missing)")
            try PythonCheck.validate(json: Data(try status.json()), schema: PackageFiles.path("models/station-status.schema.json"))

            await agent.shutdown()
            try await running.value
            let stopped = try #require(AgentStatusFile.read(agent.paths.agentStatusFile))
            #expect(!stopped.running)
        }
    }

    /// Issue #27 item 2: at shutdown STOPPING=1 goes out first, then the inputs stop (a
    /// capability's, then the cameras), then the senders (the capability's, the agent's), and the
    /// store is written last (the status file records the stop once every sender has stopped).
    @Test func shutdownTellsSystemdThenStopsInputsThenSendersThenTheStore() async throws {
        try await withStopping(Station(cameras: #"[{"name": "dock", "device": "replay:\#(Self.samples("po-code128.png"))", "fps": 20}]"#)) { station in
            let notify = try NotifySocket(path: station.directory.path + "/notify")
            let probe = ShutdownProbe(notify: notify)
            let agent = try station.test.agent { dependencies in
                dependencies.environment = ["NOTIFY_SOCKET": notify.path]
                dependencies.capabilities = [probe]
            }
            let running = Task { try await agent.run() }
            try await eventually("the camera is up, the sender runs and systemd heard READY=1") {
                agent.state.current.cameras["dock"]?.up == true && agent.state.current.parts["sender"]?.state == .running
                    && probe.heard().contains("READY=1")
            }
            await agent.shutdown()
            try await running.value
            #expect(probe.log.get() == ["input: STOPPING=1 sent", "input: cameras still streaming", "input stopped",
                                        "sender: inputs stopped", "sender: cameras down", "sender: status file still running",
                                        "sender: store writable", "sender stopped"])
            // The agent's own senders stopped before the status file's last write, which says so.
            #expect(agent.state.current.parts["sender"]?.state == .stopped && agent.state.current.parts["puller"]?.state == .stopped)
            #expect(AgentStatusFile.read(agent.paths.agentStatusFile)?.running == false)
            // Issue #30 item 5: the parts ran on the station's own threads, not libdispatch's.
            let threads = probe.threads.get()
            #expect(threads.count == 4 && threads.allSatisfy { $0.hasPrefix("edge-worker-") }, "ran on \(threads)")
        }
    }

    @Test func aBrokenFileOnReloadKeepsTheRunningConfigurationAndTheCamera() async throws {
        try await withStopping(Station(cameras: #"[{"name": "dock", "device": "replay:\#(Self.samples("po-code128.png"))", "fps": 30}]"#)) { station in
            let agent = try station.agent()
            let running = Task { try await agent.run() }
            try await eventually("frames flowing") { (agent.state.current.cameras["dock"]?.frames ?? 0) >= 30 }
            let original = try Data(contentsOf: URL(fileURLWithPath: station.configPath))

            try Data(#"{"station": {"cameras": [{"name": "dock"}]}}"#.utf8).write(to: URL(fileURLWithPath: station.configPath))
            let error = await #expect(throws: StationConfigurationError.self) { try await agent.reloadFromFile() }
            #expect(error?.keyPath == "station.cameras[0].device")
            #expect(agent.state.current.lastReloadError?.contains(station.configPath) == true)
            #expect(agent.configuration.station.cameras.first?.device.hasPrefix("replay:") == true)
            let before = agent.state.current.cameras["dock"]?.frames ?? 0
            try await eventually("the camera still streams") { (agent.state.current.cameras["dock"]?.frames ?? 0) > before + 30 }

            // A valid change, as SIGHUP reads it from the file: a second camera starts, the first
            // one keeps streaming (its frame count is not reset, which a restart would do); the
            // pull interval waits for a restart.
            try original.write(to: URL(fileURLWithPath: station.configPath))
            try Self.edit(station.configPath) { file in
                var section = file["station"] as? [String: Any] ?? [:]
                section["pull_interval"] = 5
                section["cameras"] = (section["cameras"] as? [Any] ?? []) + [["name": "side", "device": "replay:" + Self.samples("vendor.png"), "fps": 10]]
                file["station"] = section
            }
            try await agent.reloadFromFile()
            #expect(agent.state.current.restartPending == ["station.pull_interval"])
            let dockFrames = agent.state.current.cameras["dock"]?.frames ?? 0
            try await eventually("the new camera runs") { agent.state.current.cameras["side"]?.up == true }
            #expect((agent.state.current.cameras["dock"]?.frames ?? 0) >= dockFrames)

            // A changed camera restarts and is up while it streams (its old loop's "down" does not
            // follow the new one's "up"); the earlier pending change stays listed until a restart.
            try Self.edit(station.configPath) { file in
                var section = file["station"] as? [String: Any] ?? [:]
                section["cameras"] = [["name": "dock", "device": "replay:" + Self.samples("po-code128.png"), "fps": 25],
                                      ["name": "side", "device": "replay:" + Self.samples("vendor.png"), "fps": 10]]
                file["station"] = section
            }
            try await agent.reloadFromFile()
            try await eventually("the changed camera streams again") { (agent.state.current.cameras["dock"]?.frames ?? 0) >= 25 && agent.state.current.cameras["dock"]?.up == true }
            let streaming = agent.state.current.cameras["dock"]?.frames ?? 0
            try await eventually("it keeps streaming") { (agent.state.current.cameras["dock"]?.frames ?? 0) > streaming + 25 }
            #expect(agent.state.current.cameras["dock"]?.up == true)
            #expect(agent.state.current.restartPending == ["station.pull_interval"])

            await agent.shutdown()
            try await running.value
        }
    }

    /// Rewrites the JSON file at `path` with `change` applied to its top-level object.
    static func edit(_ path: String, _ change: (inout [String: Any]) -> Void) throws {
        var file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
        change(&file)
        try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
    }

    /// AGT-2, AGT-10: a reload of a file with typos (a top-level section, a key of `station`) is
    /// refused with every one of them and its nearest known key, and the running configuration
    /// stays: the name, the pull interval and the backend the typos would have dropped.
    @Test func typosOnReloadAreRefusedAndTheRunningConfigurationStays() async throws {
        try await withStopping(Station(cameras: #"[{"name": "dock", "device": "replay:\#(Self.samples("po-code128.png"))", "fps": 30}]"#)) { station in
            let agent = try station.agent()
            let running = Task { try await agent.run() }
            try await eventually("frames flowing") { (agent.state.current.cameras["dock"]?.frames ?? 0) >= 30 }
            let before = agent.configuration

            // Applied, this file would rename the station, pull every 60 s and drop the backend.
            try Data("""
                {"snyc": {"base_url": "\(station.baseURL)"},
                 "station": {"nmae": "renamed", "role": "dock", "state_dir": ".", "pull_interval": 60,
                             "cameras": [{"name": "dock", "device": "replay:\(Self.samples("po-code128.png"))", "fps": 30}]}}
                """.utf8).write(to: URL(fileURLWithPath: station.configPath))
            let error = await #expect(throws: StationConfigurationError.self) { try await agent.reloadFromFile() }
            #expect(error?.code == .unknownKey && error?.keyPath == "snyc")
            let reported = try #require(agent.state.current.lastReloadError)
            #expect(reported.contains("\(station.configPath): snyc: unknown key; did you mean sync?"), "\(reported)")
            #expect(reported.contains("\(station.configPath): station.nmae: unknown key; did you mean station.name?"), "\(reported)")
            #expect(agent.configuration.station.name == before.station.name && agent.configuration.station.name == "dock-1")
            #expect(agent.configuration.station.pullInterval == before.station.pullInterval)
            #expect(agent.configuration.sync == before.sync && agent.configuration.sync != nil)
            let frames = agent.state.current.cameras["dock"]?.frames ?? 0
            try await eventually("the camera still streams") { (agent.state.current.cameras["dock"]?.frames ?? 0) > frames + 30 }

            await agent.shutdown()
            try await running.value
        }
    }

    @Test func aHeldStationCredentialIsReleasedByANewTokenInTheVault() async throws {
        try await withStopping(Station(cameras: "[]")) { station in
            let agent = try station.agent()
            let running = Task { try await agent.run() }
            _ = station.standin.backend.revoke(.token(AgentTests.token))
            try await agent.outbox.database.dbWriter.write { db in
                try agent.outbox.enqueue(db, stream: "scan:dock", kind: ScanEventRecorder.kind, payload: Array(#"{"text":"x"}"#.utf8))
            }
            try await eventually("the station credential held") { try SyncState(database: agent.outbox.database).holds().map(\.credential) == ["station"] }
            #expect(try agent.outbox.status().depth == 1)
            // A capability's expected wait beside it (issue #28): /metrics counts the rejected
            // credential as held and the wait apart, and a new token never releases the wait.
            let approval = HoldKind(name: "approval_test", waitingFor: "approval", isFault: false, operatorMayRelease: false)
            try SyncState(database: agent.outbox.database).hold(credential: "enrollment.9.access", reason: "waiting", kind: approval, now: 1)
            let address = try #require(agent.state.current.metricsAddress)
            try await eventually("/metrics tells the fault from the wait") {
                let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)/metrics")!)
                let samples = try PythonCheck.prometheusSamples(body)
                return samples["edge_outbox_held_credentials{}"] == 1 && samples["edge_outbox_waiting_credentials{}"] == 1
            }

            let fresh = "agent-test-station-token-2"
            station.standin.backend.addStaticToken(fresh)
            try agent.vault?.withVault { vault in try vault.put(SecureBytes(Array(fresh.utf8)), name: SecretName("sync.token")) }
            try await eventually("released and sent with the new token") {
                try SyncState(database: agent.outbox.database).holds().map(\.credential) == ["enrollment.9.access"] && agent.outbox.status().depth == 0
            }
            await agent.shutdown()
            try await running.value
        }
    }

    private func registerDevice(_ agent: Agent, user: String, token: String) throws {
        let store = try PushStore(database: agent.outbox.database, stationZone: "UTC")
        _ = try store.registerDevice(userID: user, token: token, platform: .android, now: Int64(Date().timeIntervalSince1970))
    }
}

/// A capability whose input and sender write down, when told to stop, what has stopped before them.
final class ShutdownProbe: StationCapability, @unchecked Sendable {
    // @unchecked: `heardSoFar` and `log` are Locked; `notify` is thread-safe.
    let name = "probe"
    let notify: NotifySocket
    let log = Locked<[String]>([])
    private let heardSoFar = Locked<[String]>([])

    init(notify: NotifySocket) { self.notify = notify }

    /// Everything systemd was told so far.
    func heard() -> [String] {
        let new = notify.received()
        return heardSoFar.withLock { $0 += new; return $0 }
    }

    /// The threads the probe's services ran on.
    let threads = Locked<[String]>([])

    func contribute(to context: StationContext) throws -> StationServices {
        StationServices(inputs: [Probe(threads: threads) { [self] in
                            if heard().contains("STOPPING=1") { log.withLock { $0.append("input: STOPPING=1 sent") } }
                            if context.state.current.cameras["dock"]?.up == true { log.withLock { $0.append("input: cameras still streaming") } }
                            log.withLock { $0.append("input stopped") }
                        }],
                        senders: [Probe(threads: threads) { [self] in
                            if log.get().contains("input stopped") { log.withLock { $0.append("sender: inputs stopped") } }
                            if context.state.current.cameras["dock"]?.up == false { log.withLock { $0.append("sender: cameras down") } }
                            if AgentStatusFile.read(context.paths.agentStatusFile)?.running == true {
                                log.withLock { $0.append("sender: status file still running") }
                            }
                            if (try? context.outbox.status()) != nil { log.withLock { $0.append("sender: store writable") } }
                            log.withLock { $0.append("sender stopped") }
                        }])
    }

    /// Runs until graceful shutdown, then calls `stopping` before it returns.
    struct Probe: Service {
        let threads: Locked<[String]>
        let stopping: @Sendable () -> Void
        func run() async throws {
            threads.withLock { $0.append(ThreadNames.current()) }
            try? await gracefulShutdown()
            threads.withLock { $0.append(ThreadNames.current()) }
            stopping()
        }
    }
}
