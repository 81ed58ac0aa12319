import EdgeContract
import EdgeStandin
import XCTest

/// The `/_standin/` control paths over HTTP, as a test in another process (the crash test) uses
/// them.
final class StandinControlAPITests: StandinTestCase {
    private func control<T: Encodable>(_ method: String, _ path: String, _ body: T) async throws -> RawHTTPResponse {
        try await client.send(method, path, body: try ContractCoding.encode(body)).response()
    }

    func testTheControlAPIIsOffByDefault() async throws {
        let plain = Standin(configuration: StandinConfiguration(staticTokens: ["t"]))
        let port = try await plain.start()
        let other = StandinClient(port: port, token: "t")
        for (method, path) in [("GET", StandinControlPath.faults), ("POST", StandinControlPath.faults), ("GET", StandinControlPath.requests),
                               ("GET", StandinControlPath.applied), ("POST", StandinControlPath.revoke)] {
            let answer = try await other.send(method, path, body: Array(#"{"kind":"refuse"}"#.utf8)).response()
            XCTAssertEqual(answer.status, 404, "\(method) \(path)")
        }
        XCTAssertEqual(plain.faults.plan, FaultPlan())
        await plain.stop()
    }

    func testFaultsOverHTTP() async throws {
        let set = try await control("POST", StandinControlPath.faults, StandinFault(.status, pathPrefix: APIPath.syncPush, times: 1,
                                                                                    parameters: FaultParameters(status: 503, retryAfter: "1")))
        XCTAssertEqual(try set.decode(FaultPlan.self).faults.count, 1)
        let hit = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 1), idempotencyKey: UUID().uuidString).response()
        XCTAssertEqual(hit.status, 503)
        XCTAssertEqual(hit.header("Retry-After"), "1")

        // A plan as raw JSON, the way a shell script writes it.
        let plan = #"{"faults":[{"kind":"dropBeforeApply","path_prefix":"/api/sync/push"}],"random":{"seed":1,"probability":0.1,"kinds":["delay"]}}"#
        let added = try await client.send("POST", StandinControlPath.faults, body: Array(plan.utf8)).response().decode(FaultPlan.self)
        XCTAssertEqual(added.faults.first?.kind, .dropBeforeApply)
        XCTAssertEqual(added.random?.seed, 1)
        let cleared = try await client.send("DELETE", StandinControlPath.faults, body: []).response().decode(FaultPlan.self)
        XCTAssertEqual(cleared, FaultPlan())
        let bad = try await client.send("POST", StandinControlPath.faults, body: Array(#"{"kind":"explode"}"#.utf8)).response()
        XCTAssertEqual(bad.status, 400)
    }

    func testRequestsAndAppliedOverHTTP() async throws {
        let key = UUID().uuidString
        _ = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 3), idempotencyKey: key).response()
        _ = try await client.post(APIPath.syncPush, StandinClient.pushEntry(sequence: 3), idempotencyKey: key).response()
        let requests = try await client.get(StandinControlPath.requests).response().decode([RecordedRequest].self)
        XCTAssertEqual(requests.map(\.idempotencyKey), [key, key])
        XCTAssertEqual(requests.map(\.status), [200, 200])
        XCTAssertTrue(requests.allSatisfy { $0.hasAuthorization && $0.headers["authorization"] == nil })
        let applied = try await client.get(StandinControlPath.applied).response().decode([AppliedRecord].self)
        XCTAssertEqual(applied.count, 1)
        XCTAssertEqual(applied.first?.applications, 1)
        XCTAssertEqual(applied.first?.replays, 1)
        XCTAssertEqual(applied.first?.sequence, 3)
        let cleared = try await client.send("DELETE", StandinControlPath.requests, body: []).response()
        XCTAssertEqual(cleared.status, 200)
        XCTAssertEqual(standin.requests, [])
    }

    func testRevokeChangesAndApproveOverHTTP() async throws {
        standin.backend.addStaticToken("victim")
        let revoked = try await client.send("POST", StandinControlPath.revoke, body: Array(#"{"token":"victim","code":"PATIENT_DISCONNECTED"}"#.utf8)).response()
        XCTAssertEqual(revoked.json?["revoked"], .integer(1))
        let answer = try await StandinClient(port: client.port, token: "victim").get(APIPath.syncPull).response()
        XCTAssertEqual(answer.errorCode, "PATIENT_DISCONNECTED")
        let ambiguous = try await client.send("POST", StandinControlPath.revoke, body: Array(#"{"token":"a","token_prefix":"b"}"#.utf8)).response()
        XCTAssertEqual(ambiguous.status, 400)

        let change = try await client.send("POST", StandinControlPath.changes, body: Array(#"{"stream":"notes","kind":"NOTIFICATION","payload":{"title":"Delivery"}}"#.utf8))
            .response().decode(SyncChange.self)
        XCTAssertEqual(change.id, "chg-000001")
        let approved = try await control("POST", StandinControlPath.approve, ["enrollment_id": "enr-cd-0001"]).decode(EnrollmentStatusResponse.self)
        XCTAssertEqual(approved.status, .enrolled)
        let pulled = try await client.get(APIPath.syncPull).response().decode(SyncPullResponse.self)
        XCTAssertEqual(pulled.changes.map(\.kind), ["NOTIFICATION", "ENROLLMENT_STATUS"])
        XCTAssertEqual(pulled.changes.first, change)
    }

    func testFCMFaultsAndMessagesOverHTTP() async throws {
        // Every kind round-trips through the control API's JSON.
        let kinds = [
            #"{"kind":"unregistered","token":"t1"}"#, #"{"kind":"sender_id_mismatch"}"#, #"{"kind":"invalid_token"}"#,
            #"{"kind":"invalid_payload","times":2}"#, #"{"kind":"quota_exceeded","retry_after":"30"}"#,
            #"{"kind":"server_error","status":503}"#, #"{"kind":"bad_gateway_html"}"#, #"{"kind":"unauthenticated","forever":true}"#,
            #"{"kind":"goaway"}"#, #"{"kind":"slow","seconds":0.5}"#,
        ]
        for json in kinds {
            let answer = try await client.send("POST", StandinControlPath.fcmFaults, body: Array(json.utf8)).response()
            XCTAssertEqual(answer.status, 200, json)
        }
        let listed = try await client.get(StandinControlPath.fcmFaults).response().decode([FCMFault].self)
        XCTAssertEqual(listed.map(\.kind), [.unregistered, .senderIDMismatch, .invalidToken, .invalidPayload, .quotaExceeded(retryAfter: "30"),
                                            .serverError(status: 503), .badGatewayHTML, .unauthenticated, .goAway, .slow(seconds: 0.5)])
        XCTAssertEqual(listed.first?.token, "t1")
        XCTAssertEqual(listed[3].times, 2)
        XCTAssertNil(listed[7].times, "forever")
        XCTAssertEqual(standin.backend.fcm.faults, listed)

        for bad in [#"{"kind":"explode"}"#, #"{"kind":"server_error","status":418}"#, #"{"kind":"slow","seconds":-1}"#, #"{"kind":"goaway","times":0}"#] {
            let answer = try await client.send("POST", StandinControlPath.fcmFaults, body: Array(bad.utf8)).response()
            XCTAssertEqual(answer.status, 400, bad)
        }
        let list = #"{"faults":[{"kind":"goaway"},{"kind":"slow","seconds":1}]}"#
        let cleared = try await client.send("DELETE", StandinControlPath.fcmFaults, body: []).response().decode([FCMFault].self)
        XCTAssertEqual(cleared, [])
        let two = try await client.send("POST", StandinControlPath.fcmFaults, body: Array(list.utf8)).response().decode([FCMFault].self)
        XCTAssertEqual(two.count, 2)

        // Messages: the stand-in has no FCM key here, so messages:send is 404 and none is recorded.
        let messages = try await client.get(StandinControlPath.fcmMessages).response()
        XCTAssertEqual(messages.status, 200)
        XCTAssertEqual(String(decoding: messages.body, as: UTF8.self), "[]")
        let forgotten = try await client.send("DELETE", StandinControlPath.fcmMessages, body: []).response()
        XCTAssertEqual(forgotten.status, 200)
    }
}
