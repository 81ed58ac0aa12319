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
        let directory = try TemporaryDirectory(prefix: "edge-clinic-agent")
        let standin = Standin(configuration: StandinConfiguration(staticTokens: [Clinic.stationToken], seedDemoData: true))
        let base = "http://127.0.0.1:\(try await standin.start())"
        // Stopped also when the test fails half-way: a station left running when the process
        // exits can crash it.
        try await withStopping(standin, stop: { await $0.stop(timeout: .seconds(5)) }) { standin in
            let path = directory.path + "/edge.json"
            // The poll is slow on purpose: only the pulled change can approve within the test.
            try Data("""
                {"station": {"name": "clinic-1", "role": "clinic", "state_dir": ".", "vault_backend": "keyfile", "pull_interval": 1},
                 "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(base)"}],
                 "sync": {"base_url": "\(base)", "connect_timeout": 2, "total_timeout": 5},
                 "push": {"endpoint": "\(base)", "station_zone": "Asia/Kolkata"},
                 "enrollment": {"status_poll_interval": 3600, "request_timeout": 5, "retry_delay": 0.05}, "ui": {"enabled": false}}
                """.utf8).write(to: URL(fileURLWithPath: path))
            let configuration = try StationConfiguration.load(path: path)
            let quiet = Logger(label: "edge-test") { _ in SwiftLogNoOpLogHandler() }

            // Linked from the command line's side before the agent runs (what `edge enroll` does).
            let desk = try Enrollments.open(configuration, environment: [:], logger: quiet)
            try desk.vault.withVault { vault throws(VaultError) in try vault.put(SecureBytes(Array(Clinic.stationToken.utf8)), name: SecretName("sync.token")) }
            let enrollment = try await desk.enroll(input: DemoData.linkingCode, source: .typed)
            #expect(enrollment.state == .studyStartPending)
            let note = try desk.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "baseline"}"#.utf8), for: enrollment.id)

            var dependencies = AgentDependencies()
            dependencies.environment = [:]
            dependencies.retryInterval = .milliseconds(200)
            dependencies.logger = quiet
            let agent = try buildStation(configuration, dependencies: dependencies).agent
            let running = Task { try await agent.run() }
            try await withStopping(agent, stop: { await $0.shutdown(); _ = try? await running.value }) { agent in

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
            try await running.value
        }
    }
}
