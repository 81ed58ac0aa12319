import EdgeAgent
import EdgeContract
import EdgeCrypto
import EdgeEnrollment
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import EdgeVault
import Foundation
import Logging
import Testing

/// Enrollment inside the agent (`buildAgent` with `EnrollmentCapability`): the approval arrives as
/// a pulled change through the agent's puller, the queued data goes out through its sender, and
/// a revocation the sender meets turns the enrollment NOT_PARTICIPATING (ENR-10, ENR-13).
@Suite(.serialized) struct EnrollmentCapabilityTests {
    @Test func anApprovalPulledByTheAgentReleasesTheDataAndARevocationTheSenderMeetsEndsIt() async throws {
        // Stopped also when the test fails half-way: a station left running when the process
        // exits can crash it. The poll is slow on purpose: only the pulled change can approve
        // within the test.
        try await withStopping(TestStation(role: "clinic", name: "clinic-1", sections: #"""
                                               "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "{base}"}],
                                               "push": {"endpoint": "{base}", "station_zone": "Asia/Kolkata"},
                                               "enrollment": {"status_poll_interval": 3600, "request_timeout": 5, "retry_delay": 0.05},
                                               "ui": {"enabled": false}
                                               """#, token: Clinic.stationToken, prefix: "edge-clinic-agent")) { test in
            let standin = test.standin
            let configuration = try test.configuration()
            let quiet = Logger(label: "edge-test") { _ in SwiftLogNoOpLogHandler() }

            // Linked from the command line's side before the agent runs (what `edge enroll` does).
            let desk = try Enrollments.open(configuration, environment: [:], logger: quiet)
            let enrollment = try await desk.enroll(input: DemoData.linkingCode, source: .typed)
            #expect(enrollment.state == .studyStartPending)
            let note = try desk.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "baseline"}"#.utf8), for: enrollment.id)

            try test.start()
            do {

                // Nothing of the enrollment's goes out while pending. The poller asks once at start (and
                // then only hourly here): wait for that answer so the approval below can only come pulled.
                try await eventually("the agent pulled once") { standin.requests.contains { $0.path == APIPath.syncPull } }
                try await eventually("the start-up status check answered") {
                    standin.requests.contains { $0.path == APIPath.enrollmentStatus && $0.status == 200 }
                }
                #expect(standin.backend.applications(ofKey: note.message.idempotencyKey) == 0)

                // The investigator approves: the pulled ENROLLMENT_STATUS change approves it, the note goes once.
                #expect(standin.backend.approveStudyStart(enrollmentID: "enr-ab-0001") != nil)
                try await eventually("approved from the pulled change") {
                    try desk.store.enrollment(enrollment.id).lifecycle.history.last?.cause == "Study Start approved (pushed change)"
                }
                try await eventually("the note applied") { standin.backend.applications(ofKey: note.message.idempotencyKey) == 1 }
                // One zone resolver (push.station_zone): the portal's requests, the desk's and the
                // agent's poller's, carry the X-Timezone sync's do.
                let zones = Set(standin.requests.compactMap { $0.headers["x-timezone"] })
                #expect(zones == ["Asia/Kolkata"])
                #expect(standin.requests.contains { $0.path == APIPath.enrollmentStatus && $0.headers["x-timezone"] != nil })

                // Revoked on the server, refresh token too: the sender's next send for it ends the enrollment.
                #expect(standin.backend.revoke(.enrollment("enr-ab-0001"), code: .tokenRevoked) == 2)
                let late = try desk.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "after revocation"}"#.utf8), for: enrollment.id)
                try await eventually("revoked by the sender's answer") { try desk.store.enrollment(enrollment.id).state == .notParticipating }
                let revoked = try desk.store.enrollment(enrollment.id)
                #expect(revoked.lifecycle.history.last?.cause.hasPrefix("revoked: HTTP 403 TOKEN_REVOKED on sync") == true)
                #expect(standin.requests.filter { $0.path == APIPath.enrollmentRefresh }.count == 1)
                #expect(standin.backend.applications(ofKey: late.message.idempotencyKey) == 0)
                #expect(try desk.vault.secret(enrollment.accessSecret) == nil)

            }
            try await test.stopAgent()
        }
    }
}
