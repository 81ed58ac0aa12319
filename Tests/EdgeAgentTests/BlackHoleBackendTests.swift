import EdgeAgent
import EdgeContract
import EdgeCore
import EdgePush
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import Foundation
import FoundationNetworking
import Testing

/// Issue #30 item 4: a backend that accepts connections and never answers (`stall`), or answers
/// one byte a second (`trickle`), behind every client the station has: the outbox sender, the
/// puller, the dock's lookups (the receiving client), the enrollment portal and FCM.
/// - each request ends at its configured timeout, the station says why, and the kiosk and status
///   answer meanwhile;
/// - shutdown ends while the backend still holds every request (the clients give up, not the
///   server: no request was answered, and none ended at its timeout);
/// - the entry in flight stays queued and, once the backend answers again, is applied once.
@Suite(.serialized) struct BlackHoleBackendTests {
    static let token = "black-hole-station-token"

    /// A dock and clinic with push, every backend on the stand-in; timeouts as given.
    final class Station: @unchecked Sendable, Stoppable {
        let test: TestStation
        var standin: Standin { test.standin }
        private(set) var agent: Agent?
        private(set) var running: Task<Void, any Error>?
        private(set) var kiosk = ""

        /// `camera`: a dock camera replaying a PO label, every read reported (the dock's own
        /// lookups, besides the kiosk's).
        init(syncTimeout: Double, enrollmentTimeout: Double, pushTimeout: Double, camera: Bool = false) async throws {
            let cameras = camera ? #"[{"name": "dock", "device": "replay:\#(PackageFiles.path("samples/po-code128.png"))", "fps": 2}]"# : "[]"
            test = try await TestStation(role: "both", name: "black-hole-1", cameras: cameras, station: #""repeat_gap": 0"#, sections: #"""
                "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "{base}"}],
                "enrollment": {"status_poll_interval": 1, "request_timeout": \#(enrollmentTimeout), "network_retries": 0, "retry_delay": 0.05, "attempt_limit": 100},
                "receiving": {"tenant_id": "\#(DemoData.tenantID)"},
                "push": {"endpoint": "{base}", "station_zone": "UTC", "request_timeout": \#(pushTimeout), "receiving_team": ["dock-lead"]},
                "ui": {"listen": "127.0.0.1:0"}
                """#, token: BlackHoleBackendTests.token, fcm: true, syncTimeouts: (1, syncTimeout), prefix: "edge-black-hole")
        }

        /// Builds and runs the whole station; returns once the kiosk listens.
        func start() async throws -> Agent {
            let built = try test.station()
            let agent = built.agent
            self.agent = agent
            running = Task { try await agent.run() }
            var address: String?
            try await eventually("the kiosk listens") {
                address = agent.state.current.uiAddress
                return address != nil
            }
            kiosk = address ?? ""
            return agent
        }

        /// Shuts the agent down and waits for it to return.
        func shutdown() async throws {
            guard let agent, let running else { return }
            await agent.shutdown()
            try await running.value
            self.running = nil
        }

        func stop() async {
            standin.faults.clear()
            // A station that failed to stop is not waited for again (the test has failed and
            // says why); one still running is shut down.
            if let agent, let running {
                await agent.shutdown()
                let done = Locked(false)
                let waiting = Task { _ = try? await running.value; done.set(true) }
                try? await eventually("the station stops", timeout: .seconds(10)) { done.get() }
                if done.get() { await waiting.value }
            }
            await test.standin.stop(timeout: .seconds(5))
        }

        /// An HTTP exchange with the kiosk: status and body. URLSession's own timeout is long: the
        /// station's answer must come first.
        func kioskRequest(_ method: String, _ path: String, json: String? = nil) async throws -> (Int, Data) {
            var request = URLRequest(url: URL(string: kiosk + path)!, timeoutInterval: 120)
            request.httpMethod = method
            if let json {
                request.httpBody = Data(json.utf8)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                let (data, _) = try await URLSession.shared.data(from: URL(string: kiosk + "/api/v1/session")!)
                let token = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["csrf_token"] as? String
                request.setValue(token, forHTTPHeaderField: "X-CSRF-Token")
            }
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        }

        /// Requests on `path` (a prefix) the stand-in received.
        func requests(_ path: String) -> [RecordedRequest] { standin.requests.filter { $0.path.hasPrefix(path) } }

        /// Puts the backend in `mode` for every request, once the station has what makes each of
        /// its clients call: an enrollment waiting for its Study Start approval (the poller asks
        /// every second), and a notification for the relay, whose OAuth token request to FCM is
        /// held first (the notification arrives by a pull, which the fault would hold too).
        func blackHole(_ mode: Mode, _ agent: Agent) async throws {
            let (linked, body) = try await kioskRequest("POST", "/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.linkingCode)"}"#)
            #expect(linked == 200 && String(decoding: body, as: UTF8.self).contains("STUDY_START_PENDING"), "\(String(decoding: body, as: UTF8.self))")
            standin.faults.add(mode.fault, pathPrefix: "/token")
            standin.faults.add(mode.fault, pathPrefix: "/v1/projects/")
            try queueNotification(agent)
            try await eventually("the relay asks FCM for a token") { self.requests("/token").contains { $0.fault == mode.fault } }
            standin.faults.add(mode.fault)
        }

        /// A device and a pulled notification for it, so the relay has something to send to FCM.
        func queueNotification(_ agent: Agent) throws {
            let store = try PushStore(database: agent.outbox.database, stationZone: "UTC")
            _ = try store.registerDevice(userID: "ana", token: "fcm-token-ana", platform: .android, now: Int64(Date().timeIntervalSince1970))
            _ = standin.backend.appendChange(stream: "push:ana", kind: "NOTIFICATION", payload: .object([
                "user_id": .string("ana"), "type": .string("APPROVAL_PENDING"), "priority": .string("HIGH"),
                "title": .string("Approval needed: PO-2026-00077"), "body": .string("Office chairs"), "deep_link": .string("/approvals/77")]))
            agent.wakePuller()
        }
    }

    enum Mode: String, CaseIterable, Sendable, CustomStringConvertible {
        case stall, trickle
        var description: String { rawValue }
        var fault: FaultKind { self == .stall ? .stall : .trickle }
    }

    /// The paths whose requests the test follows: sync push and pull, the dock's lookup, the
    /// portal's link and status, FCM's OAuth token.
    static let followed = [APIPath.syncPush, APIPath.syncPull, APIPath.scanBarcode, APIPath.enrollmentLink, APIPath.enrollmentStatus, "/token"]

    /// The followed paths without a request that `done` holds for.
    static func missing(_ station: Station, _ done: (RecordedRequest) -> Bool) -> [String] {
        followed.filter { path in !station.requests(path).contains(where: done) }
    }

    @Test(arguments: Mode.allCases)
    func everyRequestEndsAtItsTimeoutAndTheEntryIsAppliedOnceAfterwards(mode: Mode) async throws {
        try await withStopping(Station(syncTimeout: 1, enrollmentTimeout: 1, pushTimeout: 10)) { station in
            let agent = try await station.start()
            try await station.blackHole(mode, agent)
            let entry = try DamagedDatabaseTests.enqueue(agent.outbox, 1, marker: "black-hole")[0]
            agent.wakePuller()

            // The kiosk's dock lookup and enrollment wait for the backend; the kiosk's status and
            // `edge status` answer (that they do while requests are held is the shutdown test's).
            let lookup = Task { try await station.kioskRequest("POST", "/api/v1/dock/scans", json: #"{"text": "\#(DemoData.openOrder)"}"#) }
            let enroll = Task { try await station.kioskRequest("POST", "/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.otherPatientCode)"}"#) }
            try await eventually("a lookup and a link in flight") {
                station.requests(APIPath.scanBarcode).contains { $0.abandoned == nil } && station.requests(APIPath.enrollmentLink).contains { $0.abandoned == nil }
            }
            let (code, body) = try await station.kioskRequest("GET", "/api/v1/status")
            #expect(code == 200)
            #expect((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["station"] as? String == "black-hole-1")
            #expect(StationStatus.collect(try station.test.configuration(), environment: [:]).agent.running)

            // Each client gives up at its own timeout (the server never ends a stalled or
            // trickled request), and says so.
            let (lookupCode, lookupBody) = try await lookup.value
            #expect(lookupCode == 200)
            let order = (try JSONSerialization.jsonObject(with: lookupBody) as? [String: Any])?["order"] as? [String: Any]
            #expect(order?["available"] as? Bool == false)
            #expect((order?["offline_reason"] as? String)?.contains("did not answer in time") == true, "\(String(decoding: lookupBody, as: UTF8.self))")
            let (enrollCode, enrollBody) = try await enroll.value
            #expect(enrollCode >= 500, "\(String(decoding: enrollBody, as: UTF8.self))")
            try await eventually("a request abandoned by its client on \(Self.missing(station) { $0.abandoned == true })", timeout: .seconds(60)) {
                Self.missing(station) { $0.abandoned == true }.isEmpty
            }
            try await eventually("the sender says the backend timed out") {
                try agent.outbox.pendingEntries().first { $0.idempotencyKey == entry.idempotencyKey }?.lastError?.contains("did not answer in time") == true
            }
            try await eventually("the puller says the backend timed out") {
                agent.state.current.lastPullError?.contains("did not answer in time") == true
            }
            #expect(try agent.outbox.pendingEntries().contains { $0.idempotencyKey == entry.idempotencyKey })

            // The backend answers again: the entry is applied once, whatever the trickle applied.
            // Five timeouts in a row may have paused sending (SYN-7); the operator's `edge sync
            // run` ends the pause and the backoff, as the pause's own end would within 5 minutes.
            station.standin.faults.clear()
            try SyncState(database: agent.outbox.database).resume(now: Date().timeIntervalSince1970)
            _ = try agent.outbox.makeAllDue(now: Date().timeIntervalSince1970)
            try await eventually("the entry delivered", timeout: .seconds(60)) {
                try !agent.outbox.pendingEntries().contains { $0.idempotencyKey == entry.idempotencyKey }
            }
            #expect(station.standin.backend.applications(ofKey: entry.idempotencyKey) == 1)
            try await eventually("the pull recovers") { agent.state.current.lastPullError == nil }
        }
    }

    @Test(arguments: Mode.allCases)
    func shutdownEndsWhileTheBackendHoldsEveryRequest(mode: Mode) async throws {
        // Timeouts far longer than the test waits: what ends the requests is the shutdown.
        try await withStopping(Station(syncTimeout: 600, enrollmentTimeout: 300, pushTimeout: 600, camera: true)) { station in
            let agent = try await station.start()
            try await station.blackHole(mode, agent)
            let entry = try DamagedDatabaseTests.enqueue(agent.outbox, 1, marker: "black-hole")[0]
            agent.wakePuller()
            let lookup = Task { try? await station.kioskRequest("POST", "/api/v1/dock/scans", json: #"{"text": "\#(DemoData.openOrder)"}"#) }
            let second = Task { try? await station.kioskRequest("POST", "/api/v1/dock/scans", json: #"{"text": "\#(DemoData.partialOrder)"}"#) }
            let enroll = Task { try? await station.kioskRequest("POST", "/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.otherPatientCode)"}"#) }
            defer { lookup.cancel(); second.cancel(); enroll.cancel() }
            try await eventually("a request in flight on \(Self.missing(station) { $0.fault == mode.fault && $0.abandoned == nil })") {
                Self.missing(station) { $0.fault == mode.fault && $0.abandoned == nil }.isEmpty
            }
            // Three lookups held: the kiosk's two and the camera's (the dock's own service). With
            // the sender's batch and the pull, five requests on the transport the parts share: none
            // waits behind the others' stalled ones for a connection (`StationParts.syncTransport`).
            try await eventually("the kiosk's two lookups and the camera's held") {
                station.requests(APIPath.scanBarcode).filter { $0.fault == mode.fault && $0.abandoned == nil }.count >= 3
            }

            // Meanwhile the kiosk (its status API and page) and `edge status` answer, every
            // request still held.
            let (code, body) = try await station.kioskRequest("GET", "/api/v1/status")
            #expect(code == 200)
            let queue = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["queue"] as? [String: Any]
            #expect((queue?["depth"] as? Int ?? 0) >= 1)
            #expect(try await station.kioskRequest("GET", "/status").0 == 200)
            #expect(StationStatus.collect(try station.test.configuration(), environment: [:]).agent.running)
            #expect(Self.missing(station) { $0.fault == mode.fault && $0.abandoned == nil }.isEmpty)

            // Bounded, so that a station that waits for its timeouts fails here and says which
            // parts still run (the timeouts are ten times longer).
            let done = Locked(false)
            let stopping = Task { try await station.shutdown(); done.set(true) }
            try await eventually("the shutdown ends; still running: \(agent.state.current.parts.filter { $0.value.state != .stopped }.keys.sorted())",
                                 timeout: .seconds(30)) { done.get() }
            try await stopping.value

            // Every request held by the backend was let go by the station: unanswered (stall) or
            // unfinished (trickle), and none of them ended at a timeout (the entry's last error
            // is not one).
            for path in Self.followed {
                let held = { station.requests(path).filter { $0.fault == mode.fault } }
                try await eventually("\(path) let go") { held().allSatisfy { $0.abandoned == true } }
                if mode == .stall { #expect(held().allSatisfy { $0.status == nil }, "\(path)") }
            }
            let pending = try #require(try agent.outbox.pendingEntries().first { $0.idempotencyKey == entry.idempotencyKey })
            #expect(pending.lastError?.contains("did not answer in time") != true, "\(pending.lastError ?? "")")

            // Restarted with the backend answering: applied once.
            station.standin.faults.clear()
            try agent.outbox.database.close()
            let again = try await station.start()
            try await eventually("the entry delivered after the restart", timeout: .seconds(60)) {
                try !again.outbox.pendingEntries().contains { $0.idempotencyKey == entry.idempotencyKey }
            }
            #expect(station.standin.backend.applications(ofKey: entry.idempotencyKey) == 1)
        }
    }
}
