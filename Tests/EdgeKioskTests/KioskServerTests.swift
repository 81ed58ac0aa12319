import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeEnrollment
import EdgeKiosk
import EdgePayloads
import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import EdgeVault
import Foundation
import FoundationNetworking
import Logging
import Testing

/// The kiosk's HTTP surface inside the whole station (`buildAgent` with the receiving, enrollment
/// and kiosk capabilities, as `edge run` composes them) against the stand-in on 127.0.0.1: the
/// security checks (UI-7), the API the pages use (UI-1..4) and the live stream's resume (UI-5).
/// The browser tests (Tests/Browser) drive the same through Chromium.
@Suite(.serialized) struct KioskServerTests {
    static let token = "kiosk-test-token"

    /// A station with the kiosk on a free loopback port, and the stand-in behind it.
    final class Station: @unchecked Sendable, Stoppable {
        let test: TestStation
        let agent: Agent
        let base: String
        var directory: TemporaryDirectory { test.directory }
        var standin: Standin { test.standin }

        /// `images`: what the dock camera replays (samples/, or absolute paths); `ui`: the `ui`
        /// section; `repeatGap`: the station's (0: every frame's read is reported).
        init(role: String = "both", images: [String] = ["po-code128.png", "vendor.png"], ui: String = #"{"listen": "127.0.0.1:0"}"#,
             pin: String? = nil, repeatGap: Double = 3600) async throws {
            let samples = images.map { $0.hasPrefix("/") ? $0 : PackageFiles.path("samples/" + $0) }.joined(separator: ",")
            test = try await TestStation(role: role, name: "kiosk-1", cameras: #"[{"name": "dock", "device": "replay:\#(samples)", "fps": 5}]"#,
                                         station: #""repeat_gap": \#(repeatGap)"#, sections: #"""
                                             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "{base}"}],
                                             "enrollment": {"status_poll_interval": 3600, "request_timeout": 5, "retry_delay": 0.05, "attempt_limit": 100},
                                             "receiving": {"tenant_id": "\#(DemoData.tenantID)"}, "ui": \#(ui)
                                             """#, token: KioskServerTests.token, pin: pin, prefix: "edge-kiosk")
            agent = try test.start().agent
            let agent = self.agent
            var address: String?
            try await eventually("the kiosk listens (ui: \(agent.state.current.parts["ui"]?.reason ?? "no reason"))") {
                address = agent.state.current.uiAddress
                return address != nil
            }
            base = address ?? ""
        }

        func stop() async { await test.stop() }

        func get(_ path: String, headers: [String: String] = [:]) async throws -> (Int, [String: String], Data) {
            var request = URLRequest(url: URL(string: base + path)!)
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return try await send(request)
        }

        func post(_ path: String, json: String, token: String? = nil, headers: [String: String] = [:], method: String = "POST") async throws -> (Int, [String: String], Data) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            if let token { request.setValue(token, forHTTPHeaderField: "X-CSRF-Token") }
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return try await send(request)
        }

        private func send(_ request: URLRequest) async throws -> (Int, [String: String], Data) {
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as! HTTPURLResponse
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields { headers[String(describing: name).lowercased()] = String(describing: value) }
            return (http.statusCode, headers, data)
        }

        func csrfToken() async throws -> String {
            let (_, _, data) = try await get("/api/v1/session")
            return try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["csrf_token"] as? String)
        }
    }

    static func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func errorCode(_ data: Data) -> String? {
        (((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["error"] as? [String: Any])?["code"] as? String
    }

    /// The kiosk's status is the running station's live state (issue #27), not the status file
    /// another process reads: with the file gone, the API still says this process runs, and
    /// shows its queue from the open database.
    @Test func statusComesFromTheRunningStationNotItsStatusFile() async throws {
        try await withStopping(Station()) { station in
            try? FileManager.default.removeItem(atPath: station.agent.paths.agentStatusFile)
            let (status, _, data) = try await station.get("/api/v1/status")
            #expect(status == 200)
            let document = try Self.object(data)
            let agent = try #require(document["agent"] as? [String: Any])
            #expect(agent["running"] as? Bool == true)
            #expect((agent["pid"] as? NSNumber)?.int32Value == getpid())
            #expect(document["queue"] is [String: Any])
        }
    }

    /// AGT-9: the status page and its API name the edge that runs (version and commit).
    @Test func statusNamesTheRunningEdge() async throws {
        try await withStopping(Station()) { station in
            let build = BuildInfo.current
            let (_, _, page) = try await station.get("/status")
            let html = String(decoding: page, as: UTF8.self)
            #expect(html.contains(#"edge <span data-text="version">\#(build.version) (commit \#(build.commit))</span>"#), "\(html)")
            let (_, _, api) = try await station.get("/api/v1/status")
            let document = try Self.object(api)
            let running = try #require((document["agent"] as? [String: Any])?["edge"] as? [String: String])
            #expect(running == ["version": build.version, "commit": build.commit])
            #expect(document["edge"] as? [String: String] == running)
        }
    }

    /// Issue #28 item 2: an enrollment's Study Start hold is an expected wait (ENR-13): the status
    /// page and API show it as waiting for approval, never under "Needs attention" or with
    /// advice to release it.
    @Test func aStudyStartHoldIsShownAsWaitingForApprovalNotAsAFault() async throws {
        try await withStopping(Station()) { station in
            let token = try await station.csrfToken()
            let (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.linkingCode)"}"#, token: token)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            let id = try #require(try Self.object(data)["id"] as? Int)
            let credential = "enrollment.\(id).access"

            let (_, _, page) = try await station.get("/status")
            let html = String(decoding: page, as: UTF8.self)
            let waiting = try #require(html.components(separatedBy: #"<ul id="status-waiting""#).dropFirst().first?.components(separatedBy: "<template>").first)
            #expect(waiting.contains(#"data-hold="\#(credential)" data-hold-kind="study_start""#) && !waiting.contains(" hidden"), "\(waiting)")
            #expect(waiting.contains(#">\#(credential)</span>: waiting for <span data-text="waitingFor">approval</span>"#), "\(waiting)")
            let attention = try #require(html.components(separatedBy: #"id="status-missing""#).last)
            #expect(!attention.contains(credential) && !attention.contains("sync release"), "\(attention)")

            let (_, _, api) = try await station.get("/api/v1/status")
            let document = try Self.object(api)
            let holds = try #require((document["queue"] as? [String: Any])?["holds"] as? [[String: Any]])
            #expect(holds.count == 1)
            #expect(holds.first?["waiting_for"] as? String == "approval" && holds.first?["fault"] as? Bool == false && holds.first?["release"] == nil)
            #expect(!((document["missing"] as? [String]) ?? []).contains { $0.contains(credential) })
        }
    }

    @Test func pagesCarryAStrictPolicyAndNoInlineScriptOrStyle() async throws {
        try await withStopping(Station()) { station in
            for page in ["/dock", "/clinic", "/status"] {
                let (status, headers, body) = try await station.get(page)
                #expect(status == 200, "\(page)")
                let policy = try #require(headers["content-security-policy"])
                #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe-inline"))
                #expect(headers["x-content-type-options"] == "nosniff")
                #expect(headers["referrer-policy"] == "no-referrer" && headers["x-frame-options"] == "DENY")
                #expect(headers["cross-origin-opener-policy"] == "same-origin" && headers["cross-origin-resource-policy"] == "same-origin")
                #expect(headers["cache-control"] == "no-store")
                let html = String(decoding: body, as: UTF8.self)
                // Every script is a file of the kiosk's own; no handler attributes, no style attributes.
                #expect(html.components(separatedBy: "<script").count - 1 == html.components(separatedBy: "<script src=\"/static/kiosk.js\"").count - 1)
                #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(page) has an inline handler")
                #expect(html.range(of: #"\sstyle=""#, options: .regularExpression) == nil, "\(page) has an inline style")
                #expect(html.contains("aria-live"))
            }
            let (status, headers, _) = try await station.get("/static/kiosk.js")
            #expect(status == 200 && headers["content-type"]?.hasPrefix("text/javascript") == true)
        }
    }

    @Test func stateChangesNeedTheTokenJSONAndTheKiosksOwnOrigin() async throws {
        // A camera that sees only a linking code: nothing it reads replaces the typed lookup.
        try await withStopping(Station(images: ["linking-code.png"])) { station in
            let token = try await station.csrfToken()
            let body = #"{"text": "\#(DemoData.openOrder)"}"#

            var (status, _, data) = try await station.post("/api/v1/dock/scans", json: body)
            #expect(status == 403 && Self.errorCode(data) == "csrf")
            (status, _, data) = try await station.post("/api/v1/dock/scans", json: body, token: String(repeating: "0", count: token.count))
            #expect(status == 403 && Self.errorCode(data) == "csrf")
            (status, _, data) = try await station.post("/api/v1/dock/scans", json: body, token: token, headers: ["Origin": "http://evil.example"])
            #expect(status == 403 && Self.errorCode(data) == "cross-site")
            (status, _, data) = try await station.post("/api/v1/dock/scans", json: body, token: token, headers: ["Sec-Fetch-Site": "cross-site"])
            #expect(status == 403 && Self.errorCode(data) == "cross-site")
            (status, _, _) = try await station.post("/api/v1/dock/scans", json: body, token: token, headers: ["Content-Type": "text/plain"])
            #expect(status == 415)
            // DNS rebinding: a name that resolves to 127.0.0.1 is not the kiosk's.
            (status, _, _) = try await station.get("/dock", headers: ["Host": "evil.example"])
            #expect(status == 421)
            // Nothing of the refused calls reached the dock: no order lookup at the backend.
            func lookups() -> Int { station.standin.requests.filter { $0.path == APIPath.scanBarcode }.count }
            #expect(lookups() == 0)

            (status, _, data) = try await station.post("/api/v1/dock/scans", json: body, token: token, headers: ["Origin": station.base])
            #expect(status == 200)
            // ... and the accepted one did: the filter above watches the path lookups take.
            #expect(lookups() == 1)
            let lookup = try Self.object(data)
            #expect(lookup["kind"] as? String == "order" && lookup["camera"] as? String == KioskLookup.keyboard)
            #expect(((lookup["order"] as? [String: Any])?["lines"] as? [Any])?.isEmpty == false)
            try PythonCheck.validate(json: data, openAPIComponent: "Lookup", document: "models/kiosk-api.openapi.json")
            // The dock page now shows the order for the operator.
            let (_, _, page) = try await station.get("/dock")
            #expect(String(decoding: page, as: UTF8.self).contains("id=\"grn-form\" data-po=\"\(DemoData.openOrder)\""))
        }
    }

    @Test func aGRNConfirmedThroughTheAPIIsAppliedOnceWithItsPhoto() async throws {
        try await withStopping(Station()) { station in
            let token = try await station.csrfToken()
            var (status, _, data) = try await station.post("/api/v1/dock/photos", json: #"{"camera": "dock"}"#, token: token)
            #expect(status == 200)
            let photo = try #require(try Self.object(data)["id"] as? String)
            let (previewStatus, previewHeaders, jpeg) = try await station.get("/api/v1/dock/photos/" + photo)
            #expect(previewStatus == 200 && previewHeaders["content-type"] == "image/jpeg" && jpeg.starts(with: [0xFF, 0xD8]))

            let grn = #"{"po_number": "\#(DemoData.openOrder)", "lines": [{"line_no": 1, "received": "100", "discrepancy": "short", "note": "2 cartons missing"}], "photos": ["\#(photo)"]}"#
            (status, _, data) = try await station.post("/api/v1/dock/grns", json: grn, token: token)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            let confirmation = try Self.object(data)
            let key = try #require(confirmation["idempotency_key"] as? String)
            #expect(confirmation["waiting"] is Int)
            try PythonCheck.validate(json: data, openAPIComponent: "GRNConfirmation", document: "models/kiosk-api.openapi.json")
            try await eventually("the GRN applied") {
                let (_, _, outcome) = try await station.get("/api/v1/dock/grns/" + key)
                return try Self.object(outcome)["outcome"] as? String == "applied"
            }
            #expect(station.standin.backend.applications(ofKey: key) == 1)

            // A quantity the validator refuses comes back with its message, and nothing is queued.
            (status, _, data) = try await station.post("/api/v1/dock/grns", json: #"{"po_number": "\#(DemoData.openOrder)", "lines": [{"line_no": 1, "received": "-3"}]}"#, token: token)
            #expect(status == 422 && Self.errorCode(data) == "invalid-quantity")
        }
    }

    @Test func theClinicChecksCodesAsTypedAndEnrollsWithoutEverShowingTheCode() async throws {
        try await withStopping(Station()) { station in
            let token = try await station.csrfToken()
            var (status, _, data) = try await station.post("/api/v1/clinic/code-check", json: #"{"code": "ab-7kx-m4"}"#, token: token)
            #expect(status == 200)
            var check = try Self.object(data)
            #expect(check["message"] as? String == "7/10 characters" && check["complete"] as? Bool == false && check["display"] as? String == "AB-7KX-M4")
            (_, _, data) = try await station.post("/api/v1/clinic/code-check", json: #"{"code": "AB-7KX-M4PQ0"}"#, token: token)
            check = try Self.object(data)
            #expect(check["message"] as? String == "Please check your code. The characters I, 1, O, 0, S, 5, Z, 2 are not used in linking codes.")
            (_, _, data) = try await station.post("/api/v1/clinic/code-check", json: #"{"code": "AB-7KX-M4PQR"}"#, token: token)
            #expect(try Self.object(data)["complete"] as? Bool == true)

            (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.linkingCode)"}"#, token: token)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            let text = String(decoding: data, as: UTF8.self)
            #expect(!text.contains(DemoData.linkingCode) && text.contains("AB-***-*****"))
            try PythonCheck.validate(json: data, openAPIComponent: "Enrollment", document: "models/kiosk-api.openapi.json")
            let (_, _, page) = try await station.get("/clinic")
            #expect(!String(decoding: page, as: UTF8.self).contains(DemoData.linkingCode))

            // ENR-5's answer for a refused code, word for word.
            (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.expiredCode)"}"#, token: token)
            #expect(status == 422)
            #expect((try Self.object(data)["error"] as? [String: Any])?["message"] as? String == EnrollmentError.invalidCodeMessage)
        }
    }

    @Test func aLinkingCodeHeldToTheCameraIsValidatedWithoutReachingThePage() async throws {
        try await withStopping(Station(role: "clinic", images: ["linking-code.png"])) { station in
            let token = try await station.csrfToken()
            try await eventually("the camera read the code") { try station.agent.events.count() >= 1 }
            let live = try Self.readEvents(station.base + "/api/v1/events", lastEventID: "0", seconds: 1)
            #expect(!live.contains(DemoData.linkingCode))
            var (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"camera": true}"#, token: token)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            #expect(try Self.object(data)["masked_code"] as? String == "AB-***-*****")
            // Held once: a second validation needs a second read.
            (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"camera": true}"#, token: token)
            #expect(status == 422 && Self.errorCode(data) == "no-code-seen")
        }
    }

    // MARK: linking-code carriers (issue #28)

    static let carriers = LinkingCodeCarriers.all(DemoData.linkingCode)

    /// `{"code": text, ...}` with `text` escaped as JSON (a JSON card carrier holds quotes).
    static func body(_ fields: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
    }

    /// The field as a wedge scanner or the coordinator fills it: every carrier is checked as it
    /// would enroll, shown as its code once complete, and enrolls, typed or scanned.
    @Test func everyCarrierInTheCodeFieldIsCheckedAndEnrolls() async throws {
        try await withStopping(Station(role: "clinic")) { station in
            let token = try await station.csrfToken()
            for carrier in Self.carriers {
                var (status, _, data) = try await station.post("/api/v1/clinic/code-check", json: try Self.body(["code": carrier.text]), token: token)
                #expect(status == 200)
                let check = try Self.object(data)
                #expect(check["complete"] as? Bool == true && check["display"] as? String == "AB-7KX-M4PQR", "\(carrier): \(check)")
                try PythonCheck.validate(json: data, openAPIComponent: "CodeCheck", document: "models/kiosk-api.openapi.json")
                for source in ["typed", "scanned"] {
                    (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: try Self.body(["code": carrier.text, "source": source]), token: token)
                    #expect(status == 200, "\(carrier) \(source): \(String(decoding: data, as: UTF8.self))")
                    let enrollment = try Self.object(data)
                    #expect(enrollment["server_enrollment_id"] as? String == "enr-ab-0001" && enrollment["masked_code"] as? String == "AB-***-*****",
                            "\(carrier) \(source)")
                }
            }
            #expect(station.standin.requests.filter { $0.path == APIPath.enrollmentLink }.count == Self.carriers.count * 2)
        }
    }

    @Test func aCarrierWithAMalformedCodeInTheFieldGetsENR3ForTheCodeInside() async throws {
        try await withStopping(Station(role: "clinic")) { station in
            let token = try await station.csrfToken()
            for (bad, message) in [("AB7KXM4PQ0", LinkingCodeError.lookAlikeMessage), ("XY7KXM4PQR", LinkingCodeError.unknownPrefixMessage)] {
                for carrier in LinkingCodeCarriers.all(bad) {
                    var (status, _, data) = try await station.post("/api/v1/clinic/code-check", json: try Self.body(["code": carrier.text]), token: token)
                    let check = try Self.object(data)
                    #expect(status == 200 && check["complete"] as? Bool == false, "\(carrier)")
                    #expect(check["message"] as? String == message, "\(carrier) \(bad): \(check)")
                    // A link or card keeps its text in the field (an empty display is never written there).
                    #expect(check["display"] as? String == (carrier.reported == "bare" ? LinkingCodeCarriers.formatted(bad) : ""), "\(carrier)")
                    (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: try Self.body(["code": carrier.text]), token: token)
                    #expect(status == 422 && Self.errorCode(data) == "local-validation", "\(carrier)")
                    #expect((try Self.object(data)["error"] as? [String: Any])?["message"] as? String == message, "\(carrier) \(bad)")
                }
            }
            #expect(station.standin.requests.filter { $0.path == APIPath.enrollmentLink }.isEmpty)
        }
    }

    /// The kiosk's camera path: a station whose camera shows the carrier's QR code holds the code
    /// it carries, and "Validate scanned code" enrolls it.
    @Test func everyCarrierHeldToTheKiosksCameraEnrolls() async throws {
        let images = try TemporaryDirectory(prefix: "edge-kiosk-carriers")
        for carrier in Self.carriers {
            let image = try LinkingCodeCarriers.qrImage(carrier.text, named: carrier.name, in: images.path)
            try await withStopping(Station(role: "clinic", images: [image])) { station in
                let token = try await station.csrfToken()
                try await eventually("the camera read the \(carrier) carrier") { try station.agent.events.count() >= 1 }
                let (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"camera": true}"#, token: token)
                #expect(status == 200, "\(carrier): \(String(decoding: data, as: UTF8.self))")
                #expect(try Self.object(data)["server_enrollment_id"] as? String == "enr-ab-0001", "\(carrier)")
            }
        }
    }

    /// A link whose code's prefix no sponsor has, held to the kiosk's camera: the screen is told
    /// ENR-3's message for that code (every frame's read is reported here, so the live stream sees
    /// one), and nothing is held. (Parsing the whole link said "look-alike" for any link.)
    @Test func aMalformedCodeInALinkHeldToTheKiosksCameraGetsENR3() async throws {
        let images = try TemporaryDirectory(prefix: "edge-kiosk-carriers")
        let image = try LinkingCodeCarriers.qrImage("https://enroll.portal.example/l/XY7KXM4PQR", named: "unknown-prefix", in: images.path)
        try await withStopping(Station(role: "clinic", images: [image], repeatGap: 0)) { station in
            let token = try await station.csrfToken()
            try await eventually("the live stream shows the camera's refusal") {
                let live = try Self.readEvents(station.base + "/api/v1/events", lastEventID: "0", seconds: 2)
                return live.contains("event: linking-code") && live.contains(#""message":"\#(LinkingCodeError.unknownPrefixMessage)""#)
            }
            let (status, _, data) = try await station.post("/api/v1/clinic/enrollments", json: #"{"camera": true}"#, token: token)
            #expect(status == 422 && Self.errorCode(data) == "no-code-seen")
            #expect(station.standin.requests.filter { $0.path == APIPath.enrollmentLink }.isEmpty)
        }
    }

    @Test func theLiveStreamSaysHelloAndResumesAfterTheLastScanItSaw() async throws {
        try await withStopping(Station(role: "dock")) { station in
            try await eventually("the camera recorded two scans") { try station.agent.events.count() >= 2 }
            let events = try station.agent.events.recent(limit: 10).compactMap(\.id).sorted()
            let first = try #require(events.first)
            // Resuming after the first scan gives the later ones and not the first again.
            let received = try Self.readEvents(station.base + "/api/v1/events", lastEventID: String(first))
            #expect(received.contains("event: hello") && received.contains("csrf_token"))
            #expect(received.contains("id: \(events[1])") && !received.contains("id: \(first)\n"))
            #expect(!received.contains("AB7KXM4PQR"))

            // Live screens are bounded: with 16 open, the next is refused (each polls the database).
            let url = station.base + "/api/v1/events"
            let held = try Command.shell("for i in $(seq \(Kiosk.maxStreams)); do curl -sN --max-time 4 '\(url)' >/dev/null 2>&1 & done; echo started")
            #expect(held == "started")
            try await eventually("the seventeenth screen is refused") {
                try Command.shell("curl -s -o /dev/null --max-time 2 -w '%{http_code}' '\(url)' || true") == "503"
            }
        }
    }

    /// AGT-2 (issue #28 item 5): a sponsor added to edge.json and reloaded reaches the kiosk's
    /// code checks at once, as it reaches `edge scan`; no restart.
    @Test func aSponsorAddedByAReloadIsAcceptedByTheKiosksCodeCheck() async throws {
        try await withStopping(Station(role: "clinic", images: ["linking-code.png"])) { station in
            let token = try await station.csrfToken()
            let body = #"{"code": "\#(DemoData.otherSponsorCode)"}"#
            var (status, _, data) = try await station.post("/api/v1/clinic/code-check", json: body, token: token)
            #expect(status == 200)
            #expect(try Self.object(data)["complete"] as? Bool == false, "\(String(decoding: data, as: UTF8.self))")
            let path = station.test.configPath
            var file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
            var sponsors = file["sponsors"] as? [[String: Any]] ?? []
            sponsors.append(["prefix": "CD", "sponsor_id": "sponsor-cd", "backend_url": station.standin.baseURL ?? ""])
            file["sponsors"] = sponsors
            try JSONSerialization.data(withJSONObject: file).write(to: URL(fileURLWithPath: path))
            try await station.agent.reloadFromFile()
            #expect(station.agent.state.current.restartPending.isEmpty)
            (status, _, data) = try await station.post("/api/v1/clinic/code-check", json: body, token: token)
            #expect(status == 200)
            #expect(try Self.object(data)["complete"] as? Bool == true, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Every live message is the typed value its schema documents (issue #27: the page renders
    /// them as they come, so their shape is the page's contract): a screen connected before the
    /// scans, a lookup and an enrollment, read by curl while they happen.
    @Test func everyLiveMessageIsTheShapeItsSchemaDocuments() async throws {
        try await withStopping(Station()) { station in
            let file = station.directory.path + "/events.txt", pidFile = station.directory.path + "/curl.pid"
            let url = station.base + "/api/v1/events"
            // curl in the foreground of its own shell (exec), on a thread of its own; killed below.
            let reader = Task.detached { try Command.shell("echo $$ > '\(pidFile)'; exec curl -sN --max-time 60 -H 'Last-Event-ID: 0' '\(url)' > '\(file)'") }
            // KILL: children of the test process inherit its ignored SIGTERM (the service groups').
            defer { _ = try? Command.shell("kill -KILL $(cat '\(pidFile)') 2>/dev/null || true") }
            let received = { String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self) }
            try await eventually("the screen is connected") { received().contains("event: status") }
            let token = try await station.csrfToken()
            let (status, _, body) = try await station.post("/api/v1/clinic/enrollments", json: #"{"code": "\#(DemoData.linkingCode)"}"#, token: token)
            #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            let wanted = ["event: scan", "event: lookup", "event: enrollment"]
            try? await eventually("scans, a lookup and the enrollment on the stream") { wanted.allSatisfy(received().contains) }
            #expect(wanted.allSatisfy(received().contains), "\(received())")
            let schemas = ["hello": "HelloEventData", "status": "StatusEventData", "scan": "LiveScan", "lookup": "LookupEventData",
                           "enrollment": "EnrollmentEventData", "linking-code": "LinkingCodeEventData", "receipt": "ReceiptEventData",
                           "notice": "DockNotice"]
            var seen: Set<String> = []
            for frame in received().components(separatedBy: "\n\n") {
                let lines = frame.split(separator: "\n")
                guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7),
                      let data = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6) else { continue }
                let schema = try #require(schemas[String(name)], "an undocumented event \(name)")
                try PythonCheck.validate(json: Data(data.utf8), openAPIComponent: schema, document: "models/kiosk-api.openapi.json")
                seen.insert(String(name))
            }
            #expect(seen.isSuperset(of: ["hello", "status", "scan", "lookup", "enrollment"]), "\(seen)")
            #expect(!received().contains(DemoData.linkingCode))
            _ = try? Command.shell("kill -KILL $(cat '\(pidFile)') 2>/dev/null || true")
            _ = try? await reader.value
        }
    }

    /// Three wedge scans of line 2's GTIN with GS1 data: a lot with its expiry, a serial, the
    /// same serial again (refused).
    static func scanGS1Labels(_ station: Station, token: String) async throws {
        for (text, kind) in [("(01)04006381333931(10)L-7(17)270300", "counted"), ("(01)04006381333931(21)S-1", "counted"),
                             ("(01)04006381333931(21)S-1", "already-counted")] {
            let (status, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(text)"}"#, token: token)
            let seen = try object(data)["kind"] as? String
            #expect(status == 200 && seen == kind, "\(text): \(String(decoding: data, as: UTF8.self))")
            try PythonCheck.validate(json: data, openAPIComponent: "DockScanAnswer", document: "models/kiosk-api.openapi.json")
        }
        // The page shows the line's lots and serials under its item. (Checked here, not in the
        // caller's long closure: there this expression crashes Swift 6.3.1's SendNonSendable pass.)
        let page = String(decoding: try await station.get("/dock").2, as: UTF8.self)
        #expect(page.contains("<span class=\"tracking\" id=\"tracking-2\">lot L-7, expires 2027-03-31 \u{D7}1; serial S-1</span>"))
        #expect(!page.contains("class=\"pack\""), "no line of this order declares a pack size")
    }

    /// RCV-8, RCV-9 through the kiosk: the camera counts an item once per appearance on the order
    /// it opened, the wedge counts every scan, an item not on the order is refused by name and the
    /// order stays, another order's label asks first, a typed line is kept, every screen hears
    /// it (`receipt`, `notice`), the page shows the receipt after a reload, the receipt outlives
    /// the agent, and it is confirmed once.
    @Test func itemsScannedAtTheDockAreCountedAndTheReceiptIsStationData() async throws {
        try await withStopping(Station(images: ["po-code128.png", "material.png"], repeatGap: 3)) { station in
            let file = station.directory.path + "/events.txt", pidFile = station.directory.path + "/curl.pid"
            let url = station.base + "/api/v1/events"
            let reader = Task.detached { try Command.shell("echo $$ > '\(pidFile)'; exec curl -sN --max-time 60 '\(url)' > '\(file)'") }
            defer { _ = try? Command.shell("kill -KILL $(cat '\(pidFile)') 2>/dev/null || true") }
            let received = { String(decoding: FileManager.default.contents(atPath: file) ?? Data(), as: UTF8.self) }
            let receiptPath = "/api/v1/dock/receipts/" + DemoData.openOrder
            func receipt() async throws -> [String: Any]? {
                let (status, _, data) = try await station.get(receiptPath)
                return status == 200 ? try Self.object(data) : nil
            }
            func quantity(line: Int) async throws -> Double? {
                ((try await receipt()?["lines"] as? [[String: Any]])?.first { $0["line_no"] as? Int == line })?["received"] as? Double
            }
            // The camera: the PO label opens the order, the material label (line 1) counts once
            // while it stays in view, however many frames show it.
            try await eventually("the camera counted the material") { try await quantity(line: 1) == 1 }
            let frames = station.agent.state.current.cameras["dock"]?.frames ?? 0
            try await eventually("the camera kept streaming") { (station.agent.state.current.cameras["dock"]?.frames ?? 0) > frames + 10 }
            #expect(try await quantity(line: 1) == 1)

            let token = try await station.csrfToken()
            // The wedge: every scan of the GTIN (line 2) counts.
            var (status, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(DemoData.productGTIN)"}"#, token: token)
            #expect(status == 200)
            try PythonCheck.validate(json: data, openAPIComponent: "DockNotice", document: "models/kiosk-api.openapi.json")
            #expect(try Self.object(data)["kind"] as? String == "counted" && Self.object(data)["line_no"] as? Int == 2)
            (_, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(DemoData.productGTIN)"}"#, token: token)
            #expect(try await quantity(line: 2) == 2)
            // Not on the order: refused by name; the order stays open and the receipt unchanged.
            (status, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "MAT-XX-0001"}"#, token: token)
            let refused = try Self.object(data)
            #expect(status == 200 && refused["kind"] as? String == "not-on-order" && (refused["message"] as? String)?.contains("MAT-XX-0001") == true)
            // Another order's label: asked first, then opened on the operator's word.
            (_, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(DemoData.partialOrder)"}"#, token: token)
            #expect(try Self.object(data)["kind"] as? String == "switch")
            let (_, _, lookup) = try await station.get("/api/v1/dock/lookup")
            #expect(String(decoding: lookup, as: UTF8.self).contains(DemoData.openOrder), "the open order stays until the operator says")

            // A typed line, then the page as a reload shows it.
            (status, _, data) = try await station.post(receiptPath + "/lines/3", json: #"{"received": "10.5", "discrepancy": "short", "note": "one drum dented"}"#,
                                                       token: token, method: "PUT")
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            try PythonCheck.validate(json: data, openAPIComponent: "Receipt", document: "models/kiosk-api.openapi.json")
            let revision = try #require(try Self.object(data)["revision"] as? Int)
            let page = String(decoding: try await station.get("/dock").2, as: UTF8.self)
            #expect(page.contains(#"data-revision="\#(revision)""#) && page.contains(#"value="10.5""#) && page.contains(#"value="short" selected"#)
                    && page.contains(#"value="one drum dented""#) && page.contains(#"id="received-2" name="received-2" type="text" inputmode="decimal" maxlength="20" placeholder="50" value="2""#))
            // A stale screen's change is refused and changes nothing.
            (status, _, data) = try await station.post(receiptPath + "/lines/3", json: #"{"received": "1", "revision": 1}"#, token: token, method: "PUT")
            #expect(status == 409 && Self.errorCode(data) == "receipt-changed")
            // Undo takes back the last count (the second GTIN scan).
            (status, _, _) = try await station.post(receiptPath + "/undo", json: "{}", token: token)
            #expect(status == 200)
            #expect(try await quantity(line: 2) == 1)
            // GS1 labels from the wedge (RCV-10): the lot and expiry kept; a serial counts once.
            try await Self.scanGS1Labels(station, token: token)
            #expect(try await quantity(line: 2) == 3)

            // Every screen heard the receipt and the notices; each is the shape its schema documents.
            try await eventually("receipt and notice events") { received().contains("event: receipt") && received().contains("event: notice") }
            for frame in received().components(separatedBy: "\n\n") {
                let lines = frame.split(separator: "\n")
                guard let name = lines.first(where: { $0.hasPrefix("event: ") })?.dropFirst(7), name == "receipt" || name == "notice",
                      let event = lines.first(where: { $0.hasPrefix("data: ") })?.dropFirst(6) else { continue }
                try PythonCheck.validate(json: Data(event.utf8), openAPIComponent: name == "receipt" ? "ReceiptEventData" : "DockNotice",
                                         document: "models/kiosk-api.openapi.json")
            }

            // Confirmed once, at the revision the screen saw; the second press is refused.
            let current = try #require(try await receipt())
            let currentRevision = try #require(current["revision"] as? Int)
            let grn = #"{"po_number": "\#(DemoData.openOrder)", "lines": [{"line_no": 1, "received": "1"}, {"line_no": 2, "received": "3"}, {"line_no": 3, "received": "10.5", "discrepancy": "short", "note": "one drum dented"}], "receipt_revision": \#(currentRevision)}"#
            (status, _, data) = try await station.post("/api/v1/dock/grns", json: grn, token: token)
            #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
            try PythonCheck.validate(json: data, openAPIComponent: "GRNConfirmation", document: "models/kiosk-api.openapi.json")
            #expect(String(decoding: data, as: UTF8.self).contains(#""tracking":[{"expiry":"2027-03-31","lot":"L-7","quantity":1},{"quantity":1,"serial":"S-1"}]"#))
            #expect(try await receipt() == nil)
            (status, _, data) = try await station.post("/api/v1/dock/grns", json: grn, token: token)
            #expect(status == 409 && Self.errorCode(data) == "receipt-changed")
            try await eventually("the GRN applied, once") {
                station.standin.applied.filter { $0.path == APIPath.grnConfirm }.map(\.applications) == [1]
            }
            _ = try? Command.shell("kill -KILL $(cat '\(pidFile)') 2>/dev/null || true")
            _ = try? await reader.value
        }
    }

    /// RCV-8: a receipt in progress outlives the agent: after a stop, the database holds it as the
    /// operator left it, and a new agent's dock page shows it.
    @Test func aReceiptInProgressOutlivesTheAgent() async throws {
        let station = try await Station(images: ["po-code128.png"])
        let token = try await station.csrfToken()
        var (status, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(DemoData.openOrder)"}"#, token: token)
        #expect(status == 200)
        (status, _, data) = try await station.post("/api/v1/dock/scans", json: #"{"text": "\#(DemoData.materialCode)"}"#, token: token)
        #expect(try Self.object(data)["kind"] as? String == "counted")
        (status, _, _) = try await station.post("/api/v1/dock/receipts/\(DemoData.openOrder)/lines/2", json: #"{"received": "7"}"#, token: token, method: "PUT")
        #expect(status == 200)
        (status, _, data) = try await station.post("/api/v1/dock/photos", json: #"{"camera": "dock", "po_number": "\#(DemoData.openOrder)"}"#, token: token)
        #expect(status == 200, "\(String(decoding: data, as: UTF8.self))")
        try PythonCheck.validate(json: data, openAPIComponent: "Photo", document: "models/kiosk-api.openapi.json")
        let photo = try #require(try Self.object(data)["id"] as? String)
        #expect(photo.count == 64)
        try await station.test.stopAgent()
        let store = ReceiptStore(database: try EdgeDatabase(path: station.directory.path + "/edge.sqlite"))
        let kept = try #require(try store.receipt(DemoData.openOrder))
        #expect(kept.line(1)?.received == 1 && kept.line(2)?.received == 7 && kept.counts.first?.code == DemoData.materialCode)
        #expect(kept.photos.map(\.sha256) == [photo])

        // A new agent on the same state: its camera opens the order again and the page shows the receipt.
        let again = try station.test.start().agent
        try await eventually("the kiosk listens again") { again.state.current.uiAddress != nil }
        let base = try #require(again.state.current.uiAddress)
        try await eventually("the order is open again with its receipt") {
            let (page, _) = try await URLSession.shared.data(from: URL(string: base + "/dock")!)
            return String(decoding: page, as: UTF8.self).contains(#"placeholder="50" value="7""#)
        }
        let (page, _) = try await URLSession.shared.data(from: URL(string: base + "/dock")!)
        #expect(String(decoding: page, as: UTF8.self).contains(#"src="/api/v1/dock/photos/\#(photo)""#))
        let (jpeg, response) = try await URLSession.shared.data(from: URL(string: base + "/api/v1/dock/photos/" + photo)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && jpeg.starts(with: [0xFF, 0xD8]))
        await station.stop()
    }

    /// What the event stream sends in `seconds`, read by curl (a real HTTP client that streams).
    static func readEvents(_ url: String, lastEventID: String, seconds: Int = 3) throws -> String {
        try Command.shell("curl -sN --max-time \(seconds) -H 'Last-Event-ID: \(lastEventID)' '\(url)' || true")
    }

    /// The PIN path (beyond loopback, or `require_pin`), over TLS with the test CA: every page and
    /// call wants the session, a wrong PIN is refused and counted, the right one opens it.
    @Test func withAPINEverythingWaitsForTheOperatorsSessionOverTLS() async throws {
        let certificates = try TestCertificates()
        try await withStopping(Station(images: ["linking-code.png"], ui: """
            {"listen": "127.0.0.1:0", "require_pin": true, "tls_certificate": "\(certificates.serverCertificate)", "tls_key": "\(certificates.serverKey)"}
            """, pin: "4711")) { station in
            #expect(station.base.hasPrefix("https://127.0.0.1:"))
            let jar = station.directory.path + "/cookies"
            func curl(_ arguments: String) throws -> String {
                try Command.shell("curl -s --cacert '\(certificates.caCertificate)' -b '\(jar)' -c '\(jar)' -o /dev/null -w '%{http_code}|%{redirect_url}' \(arguments)")
            }
            #expect(try curl("'\(station.base)/dock'").hasPrefix("303|") && (try curl("'\(station.base)/dock'")).hasSuffix("/login"))
            #expect(try curl("'\(station.base)/api/v1/status'") == "401|")
            #expect(try curl("'\(station.base)/login'") == "200|")
            // The login page carries the CSRF token like every page (GET /api/v1/session wants the session).
            let login = try Command.shell("curl -s --cacert '\(certificates.caCertificate)' '\(station.base)/login'")
            let token = try #require(login.firstMatch(of: #/name="csrf-token" content="([0-9a-f]+)"/#).map { String($0.output.1) })
            let post = "-X POST -H 'Content-Type: application/json' -H 'Origin: \(station.base)' -H 'X-CSRF-Token: \(token)'"
            #expect(try curl("\(post) -d '{\"pin\": \"1234\"}' '\(station.base)/api/v1/session'") == "401|")
            #expect(try curl("\(post) -d '{\"pin\": \"4711\"}' '\(station.base)/api/v1/session'") == "200|")
            #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("edge_kiosk_session"))
            #expect(try curl("'\(station.base)/dock'") == "200|")
            #expect(try curl("'\(station.base)/api/v1/status'") == "200|")
        }
    }

    @Test func beyondLoopbackTheSettingsDemandTLS() throws {
        let open = Data(#"{"ui": {"listen": "0.0.0.0:8443"}}"#.utf8)
        // What the loader refuses (edge run, a reload, edge config check) ...
        let refused = #expect(throws: StationConfigurationError.self) {
            try StationConfiguration.parse(open, sections: StationSchema.configurationSections)
        }
        #expect(refused?.keyPath == "ui.listen")
        // ... and buildStation too, given such a file unchecked, before anything starts.
        var unchecked = StationConfiguration()
        unchecked.document = open
        #expect(throws: StationBuildError.self) { _ = try buildStation(unchecked) }
        let fine = try StationConfiguration.parse(Data(#"{"ui": {"listen": "[::1]:0"}}"#.utf8), sections: StationSchema.configurationSections)
        #expect(try fine.section("ui", as: KioskSettings.self)?.isLoopback == true)
    }
}
