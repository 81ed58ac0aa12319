import EdgeAgent
import EdgeEnrollment
import EdgeStandin
import EdgeStation
import EdgeTestSupport
import EdgeVault
import Foundation
import Logging
import Testing

/// ENR-10 and VLT-6 against the backup an operator makes: the station's whole state directory
/// (database and vault), copied while an enrollment's tokens were good and restored after the
/// portal revoked them, cannot open the tokens the revocation crypto-erased. The station is
/// opened as `edge enroll` opens it (StationPaths: its keys beside the state directory).
@Suite struct RevocationBackupTests {
    @Test func aWholeStateBackupRestoredAfterARevocationCannotOpenTheTokens() async throws {
        try await withStopping(Clinic()) { clinic in
            let state = clinic.directory.path + "/station"
            let configuration = try StationConfiguration.parse(Data("""
                {"sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(clinic.baseURL)"},
                              {"prefix": "CD", "sponsor_id": "sponsor-cd", "backend_url": "\(clinic.baseURL)"}],
                 "station": {"role": "clinic", "state_dir": "\(state)", "vault_backend": "keyfile"},
                 "enrollment": {"retry_delay": 0.05, "request_timeout": 5}}
                """.utf8), sections: StationSchema.configurationSections)
            let paths = StationPaths.resolve(configuration, environment: [:])
            #expect(paths.vaultKeyDirectory == state + "-keys")
            defer { try? FileManager.default.removeItem(atPath: paths.vaultKeyDirectory) }
            let enrollments = try Enrollments.open(configuration, environment: [:], logger: Logger(label: "edge-test") { _ in SwiftLogNoOpLogHandler() },
                                                   migrations: StationSchema.migrations)
            let enrollment = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed)
            #expect(try enrollments.vault.secret(enrollment.accessSecret) != nil)
            #expect(try enrollments.vault.secret(enrollment.refreshSecret) != nil)

            // The backup, taken while the tokens were good: the whole state directory.
            let backup = clinic.directory.path + "/backup"
            try Command.run(["/bin/cp", "-a", state, backup])

            // Revoked on the portal (access and refresh token): the refresh fails, the tokens are erased.
            #expect(clinic.standin.backend.revoke(.enrollment("enr-ab-0002"), code: .tokenRevoked) == 2)
            let verdict = await enrollments.credentialRejected(enrollment.accessSecret, status: 403, code: "TOKEN_REVOKED")
            guard case .revoked = verdict else { Issue.record("verdict \(verdict)"); return }
            #expect(try enrollments.store.enrollment(enrollment.id).state == .notParticipating)
            #expect(try enrollments.vault.secret(enrollment.accessSecret) == nil)

            // The backup restored in place of the state directory, as an operator restores one.
            try FileManager.default.removeItem(atPath: state)
            try Command.run(["/bin/cp", "-a", backup, state])
            let restored = try StationVault.open(configuration, paths: paths, environment: [:])
            for secret in [enrollment.accessSecret, enrollment.refreshSecret] {
                let error = #expect(throws: VaultError.self) { try restored.secret(secret) }
                #expect(error?.code == .unknownKey, "\(secret): \(error?.message ?? "opened")")
            }
        }
    }
}
