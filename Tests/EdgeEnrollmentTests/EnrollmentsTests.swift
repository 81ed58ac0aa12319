import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeEnrollment
import EdgePayloads
import EdgeStandin
import EdgeStore
import EdgeSync
import EdgeTestSupport
import EdgeVault
import Foundation
import GRDB
import Testing

/// Enrollment over real HTTP to the stand-in portal: one test per ENR id and per message.
@Suite(.serialized) struct EnrollmentsTests {
    typealias Messages = EnrollmentError

    // MARK: ENR-3: local validation, nothing sent

    @Test func localValidationMessagesAreExactAndNothingIsSent() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let cases: [(String, String)] = [
                ("AB-7KX-M4PQ1", LinkingCodeError.lookAlikeMessage),
                ("AB-7KX-M4P", "8/10 characters"),
                ("XY-7KX-M4PQR", LinkingCodeError.unknownPrefixMessage),
            ]
            for (input, message) in cases {
                let error = try #require(try await Self.refusal { try await enrollments.enroll(input: input, source: .typed) }, "accepted")
                #expect(error.code == .localValidation)
                #expect(error.message == message)
            }
            #expect(clinic.requests(APIPath.enrollmentLink).isEmpty)
            #expect(try enrollments.store.all().isEmpty)
        }
    }

    // MARK: ENR-5, ENR-9, ENR-12, ENR-15: success

    @Test func aValidCodeLinksStoresTokensInTheVaultAndRecordsTheHistory() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            var changes = enrollments.store.changes().makeAsyncIterator()

            let enrollment = try await enrollments.enroll(input: "ab 7kx m4pqr", source: .typed)
            #expect(enrollment.state == .studyStartPending)
            #expect(enrollment.lifecycle.history.map(\.to) == [.linkingPending, .studyStartPending])
            #expect(enrollment.maskedCode == "AB-***-*****")
            #expect(enrollment.patientID == "pat-7d41c2e0")
            #expect(enrollment.serverEnrollmentID == "enr-ab-0001")
            #expect(enrollment.sponsor?.name == "Study Sponsor AB")
            #expect(enrollment.sponsor?.colors.primary == "#0B5FFF")
            #expect(enrollment.studyStartRequired == true)

            // Observers heard both commits, in order.
            #expect(await changes.next()?.enrollment.state == .linkingPending)
            #expect(await changes.next()?.enrollment.state == .studyStartPending)

            // Tokens in the vault under the enrollment's names, nowhere else (ENR-9).
            #expect(try clinic.vault.secret(enrollment.accessSecret) != nil)
            #expect(try clinic.vault.secret(enrollment.refreshSecret) != nil)

            // ENR-12: persisted; a restarted process reads the same state and history.
            let reread = try clinic.enrollments().store.enrollment(enrollment.id)
            #expect(reread == enrollment)

            // ENR-15: the device id from the vault on the request and in the body.
            let link = try #require(clinic.requests(APIPath.enrollmentLink).first)
            #expect(link.headers[SyncHeaderName.deviceID.lowercased()] ?? link.headers[SyncHeaderName.deviceID] == (try clinic.vault.deviceID()))
            #expect(!link.hasAuthorization)
        }
    }

    // MARK: ENR-5: the portal's refusals, word for word

    @Test func invalidExpiredAndUsedCodesGetOneMessage() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            // Expired; unknown (valid shape, never issued); used by another station.
            _ = clinic.standin.backend.handle(StandinRequest(method: "POST", path: APIPath.enrollmentLink, headers: [:],
                                                             body: Array(#"{"linking_code": "CD3HJ6K8W9", "device_uuid": "another-station"}"#.utf8)))
            for code in [DemoData.expiredCode, "ABHHHHHHHH", DemoData.otherSponsorCode] {
                let error = try #require(try await Self.refusal { try await enrollments.enroll(input: code, source: .typed) }, "\(code.prefix(2)) accepted")
                #expect(error.code == .invalidCode)
                #expect(error.message == "Invalid linking code. Please check the code and try again, or contact your study coordinator for a new code.")
            }
            // Each refused first enrollment went back to PERSONAL_USE, with why.
            let all = try enrollments.store.all()
            #expect(all.count == 3)
            #expect(all.allSatisfy { $0.state == .personalUse && $0.lifecycle.history.last?.cause == "validation failed (invalid-code)" })
        }
    }

    @Test func serverErrorsAreShownAndNotRetried() async throws {
        try await withStopping(Clinic()) { clinic in
            clinic.standin.faults.add(.status, pathPrefix: APIPath.enrollmentLink, times: 1, parameters: FaultParameters(status: 503))
            let enrollments = try clinic.enrollments()
            let error = try #require(try await Self.refusal { try await enrollments.enroll(input: DemoData.linkingCode, source: .scanned) }, "a 503 linked")
            #expect(error.code == .serverError)
            #expect(error.message == "Server error. Please try again later or contact your study coordinator.")
            #expect(clinic.requests(APIPath.enrollmentLink).count == 1)
        }
    }

    @Test func networkErrorsAreRetriedThreeTimesThenShown() async throws {
        try await withStopping(Clinic()) { clinic in
            // Three refusals, then the portal answers: linked on the fourth try.
            clinic.standin.faults.add(.refuse, pathPrefix: APIPath.enrollmentLink, times: 3)
            let linked = try await clinic.enrollments().enroll(input: DemoData.linkingCode, source: .typed)
            #expect(linked.state == .studyStartPending)
            #expect(clinic.requests(APIPath.enrollmentLink).count == 4)

            // Four refusals: the message, after one try and three retries.
            clinic.standin.backend.journal.clear()
            clinic.standin.faults.add(.refuse, pathPrefix: APIPath.enrollmentLink, times: 4)
            let second = try clinic.enrollments()
            let error = try #require(try await Self.refusal { try await second.enroll(input: DemoData.otherPatientCode, source: .typed) }, "linked through four refusals")
            #expect(error.code == .noNetwork)
            #expect(error.message == "No internet connection. Please check your connection and try again.")
            #expect(clinic.requests(APIPath.enrollmentLink).count == 4)

            // Nothing listening at all: the same message.
            await clinic.stop()
            let third = try clinic.enrollments()
            let unreachable = try #require(try await Self.refusal { try await third.enroll(input: DemoData.otherPatientCode, source: .typed) }, "linked with no portal")
            #expect(unreachable.code == .noNetwork)
        }
    }

    @Test func aSlowPortalTimesOut() async throws {
        try await withStopping(Clinic()) { clinic in
            clinic.standin.faults.add(.delay, pathPrefix: APIPath.enrollmentLink, times: 1, parameters: FaultParameters(delayMS: 4000))
            clinic.settings.requestTimeout = 1
            let enrollments = try clinic.enrollments()
            let error = try #require(try await Self.refusal { try await enrollments.enroll(input: DemoData.linkingCode, source: .typed) }, "linked past the timeout")
            #expect(error.code == .timedOut)
            #expect(error.message == "Connection timed out. Please try again.")
            #expect(clinic.requests(APIPath.enrollmentLink).count == 1)
            #expect(EnrollmentSettings().requestTimeout == 30)
        }
    }

    // MARK: ENR-7: five attempts per five minutes, across a restart

    @Test func theSixthAttemptInFiveMinutesIsRefusedEvenAfterARestart() async throws {
        try await withStopping(Clinic()) { clinic in
            #expect(try clinic.enrollments().validationCooldown() == nil)
            for _ in 0..<5 {
                _ = try? await clinic.enrollments().enroll(input: DemoData.expiredCode, source: .typed)
            }
            let sent = clinic.requests(APIPath.enrollmentLink).count
            #expect(sent == 5)
            // A new process over the same database: still refused, with the cooldown left, nothing sent.
            let restarted = try clinic.enrollments()
            let error = try #require(try await Self.refusal { try await restarted.enroll(input: DemoData.linkingCode, source: .typed) }, "a sixth attempt went through")
            #expect(error.code == .rateLimited)
            #expect(error.message.hasPrefix("Too many attempts. Please wait 5 minutes before trying again."))
            let left = try #require(error.context["retry_after"].flatMap(Int.init))
            #expect(left > 0 && left <= 300)
            #expect(error.message.contains("left)"))
            #expect(clinic.requests(APIPath.enrollmentLink).count == sent)
            // What a screen opened now shows (UI-3): the same cooldown, over when the window is.
            let cooldown = try #require(try restarted.validationCooldown())
            #expect(cooldown > 0 && cooldown <= left)
            let later = { @Sendable in BootInstant(bootID: BootClock.bootID, seconds: BootClock.now().seconds + 301) }
            #expect(try clinic.enrollments(clock: { Date().timeIntervalSince1970 + 301 }, bootClock: later).validationCooldown() == nil)
            // Local validation failures are not attempts: nothing was sent for them.
            #expect(EnrollmentSettings().attemptLimit == 5 && EnrollmentSettings().attemptWindow == 300)
        }
    }

    /// Issue #30: the window is measured on the boot clock. A wall clock stepped forward by years
    /// (NTP on a station that booted in 1970) does not empty it, one stepped back an hour does not
    /// stretch it; after a reboot (another boot id) wall time measures it again.
    @Test func aClockStepNeitherSkipsNorStretchesTheCooldown() async throws {
        try await withStopping(Clinic()) { clinic in
            let start = BootClock.now()
            let wall = Date().timeIntervalSince1970
            func boot(_ seconds: Double) -> @Sendable () -> BootInstant { { BootInstant(bootID: start.bootID, seconds: start.seconds + seconds) } }
            for _ in 0..<5 {
                _ = try? await clinic.enrollments(clock: { wall }, bootClock: boot(0)).enroll(input: DemoData.expiredCode, source: .typed)
            }
            #expect(clinic.requests(APIPath.enrollmentLink).count == 5)
            // Ten seconds later on the boot clock, the wall clock stepped ten years forward.
            let forward = try clinic.enrollments(clock: { wall + 10 * 365 * 86400 }, bootClock: boot(10))
            let refused = try #require(try await Self.refusal { try await forward.enroll(input: DemoData.linkingCode, source: .typed) }, "a step forward skipped the cooldown")
            #expect(refused.code == .rateLimited)
            #expect(try forward.validationCooldown() == 290)
            // ... or an hour back: the cooldown is what is left of the window, not an hour more.
            #expect(try clinic.enrollments(clock: { wall - 3600 }, bootClock: boot(10)).validationCooldown() == 290)
            // The window over on the boot clock, whatever the wall clock says.
            #expect(try clinic.enrollments(clock: { wall - 3600 }, bootClock: boot(301)).validationCooldown() == nil)
            // After a reboot the boot clock starts again: wall time measures the earlier attempts.
            let rebooted = { @Sendable in BootInstant(bootID: "another-boot", seconds: 5) }
            #expect(try clinic.enrollments(clock: { wall + 100 }, bootClock: rebooted).validationCooldown() == 200)
            #expect(try clinic.enrollments(clock: { wall - 3600 }, bootClock: rebooted).validationCooldown() == 300)
            #expect(try clinic.enrollments(clock: { wall + 301 }, bootClock: rebooted).validationCooldown() == nil)
            #expect(clinic.requests(APIPath.enrollmentLink).count == 5)
        }
    }

    // MARK: ENR-10: revocation

    @Test func aRevokedTokenIsRefreshedOnceWhenARefreshTokenExists() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            // The re-enrollment code's approval holds: ENROLLED at once.
            let enrollment = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed)
            #expect(enrollment.state == .enrolled)
            let before = try #require(try clinic.vault.secret(enrollment.accessSecret)).withUnsafeBytes { Array($0) }

            #expect(clinic.standin.backend.revoke(.prefix("at."), code: .tokenRevoked) > 0)
            let checked = try await enrollments.check(enrollment.id)
            #expect(checked.state == .enrolled)
            let after = try #require(try clinic.vault.secret(enrollment.accessSecret)).withUnsafeBytes { Array($0) }
            #expect(after != before)
            #expect(clinic.requests(APIPath.enrollmentRefresh).count == 1)
        }
    }

    @Test(arguments: [RevocationCode.unauthorized, .tokenRevoked, .patientDisconnected])
    func aRevokedEnrollmentLosesItsTokensForGoodAndItsDataIsHeld(code: RevocationCode) async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let enrollment = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed)
            try clinic.vault.withVault { vault throws(VaultError) in try vault.put(SecureBytes(Array(Clinic.stationToken.utf8)), name: SecretName("sync.token")) }

            // A copy of the vault (and its keys) as a backup would hold it, taken while the tokens were good.
            let backup = clinic.directory.path + "/backup"
            try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
            try Command.run(["/bin/cp", "-a", clinic.directory.path + "/vault", backup + "/vault"])

            // Revoked on the server (access and refresh token): the sender meets it on sync push.
            #expect(clinic.standin.backend.revoke(.enrollment("enr-ab-0002"), code: code) == 2)
            try enrollments.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "first visit"}"#.utf8), for: enrollment.id)
            let report = try await clinic.sender(enrollments).drain(manual: true)
            #expect(report.held >= 1)

            let revoked = try enrollments.store.enrollment(enrollment.id)
            #expect(revoked.state == .notParticipating)
            let last = try #require(revoked.lifecycle.history.last)
            let expected = code == .unauthorized ? "HTTP 401" : "HTTP 403 \(code.rawValue)"
            #expect(last.cause.hasPrefix("revoked: \(expected)"))
            #expect(try clinic.vault.secret(enrollment.accessSecret) == nil)
            #expect(try clinic.vault.secret(enrollment.refreshSecret) == nil)
            #expect(clinic.logs.all.contains { $0.contains("event=enrollment.revoked") && $0.contains("method=\(expected)") && $0.contains("at=") })
            // Held, not deleted: the note and the revocation event wait in the outbox.
            #expect(try SyncState(database: clinic.database).holds().contains { $0.credential == enrollment.accessSecret })
            #expect(try clinic.outbox.usage().entries >= 2)

            // The backup restored over the live vault still cannot open the tokens (crypto-erase).
            try FileManager.default.removeItem(atPath: clinic.directory.path + "/vault")
            try Command.run(["/bin/cp", "-a", backup + "/vault", clinic.directory.path + "/vault"])
            let restored = try Vault(directory: clinic.directory.path + "/vault", backend: .keyfile)
            #expect(throws: VaultError.self) { try restored.get(SecretName(enrollment.accessSecret)) }
            #expect(throws: VaultError.self) { try restored.get(SecretName(enrollment.refreshSecret)) }
        }
    }

    /// Issue #28 item 3: a revocation met while STUDY_START_PENDING used to erase the tokens and
    /// leave the state pending, polled for ever and neither cancellable nor re-enrollable.
    @Test func aRevocationWhileStudyStartIsPendingEndsInNotParticipatingAndReenrollmentWorks() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let holds = SyncState(database: clinic.database)
            try clinic.vault.withVault { vault throws(VaultError) in try vault.put(SecureBytes(Array(Clinic.stationToken.utf8)), name: SecretName("sync.token")) }
            let pending = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            #expect(pending.state == .studyStartPending)
            #expect(try holds.hold(of: pending.accessSecret)?.kind == Enrollments.studyStartHold)
            let note = try enrollments.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "before approval"}"#.utf8), for: pending.id)

            // Revoked on the server (access and refresh token); the poller's next check meets it.
            #expect(clinic.standin.backend.revoke(.enrollment("enr-ab-0001"), code: .tokenRevoked) == 2)
            await enrollments.checkPending()
            let revoked = try enrollments.store.enrollment(pending.id)
            #expect(revoked.state == .notParticipating)
            let last = try #require(revoked.lifecycle.history.last)
            #expect(last.from == .studyStartPending)
            #expect(last.cause == "revoked: HTTP 403 TOKEN_REVOKED on the status check")
            #expect(try clinic.vault.secret(pending.accessSecret) == nil)
            #expect(try clinic.vault.secret(pending.refreshSecret) == nil)
            // Its data stays held, now waiting for a re-enrollment, which no operator release replaces.
            let hold = try #require(try holds.hold(of: pending.accessSecret))
            #expect(hold.kind == Enrollments.revokedHold)
            #expect(try holds.releaseIfOperatorMay(credential: pending.accessSecret) == nil)

            // The poller no longer asks about it.
            let asked = clinic.requests(APIPath.enrollmentStatus).count
            #expect(asked >= 1)
            await enrollments.checkPending()
            await enrollments.checkPending()
            #expect(clinic.requests(APIPath.enrollmentStatus).count == asked)

            // The same patient's new code re-enrolls it, and the data queued before goes once.
            let again = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed, reenrolling: pending.id)
            #expect(again.id == pending.id)
            #expect(again.state == .enrolled)
            #expect(try holds.hold(of: pending.accessSecret) == nil)
            let sender = try clinic.sender(enrollments)
            for _ in 0..<3 { _ = await sender.drain(manual: true) }
            #expect(clinic.standin.backend.applications(ofKey: note.message.idempotencyKey) == 1)
        }
    }

    /// Migration "v9": a station upgraded with an enrollment stuck by the old revocation (pending,
    /// tokens erased, hold "revoked: ...") finds it NOT_PARTICIPATING, and its holds get kinds.
    @Test func theUpgradeMovesAStuckPendingEnrollmentAndClassifiesItsHolds() async throws {
        let directory = try TemporaryDirectory(prefix: "edge-enrollment-upgrade")
        let path = directory.path + "/edge.sqlite"
        // The schema before hold kinds were enrollment's: the store's own (kinds column, all
        // "credential") and enrollment's tables.
        let before = try EdgeDatabase(path: path, migrations: [EnrollmentSchema.migration])
        try await before.dbWriter.write { db in
            for (id, state) in [(1, "STUDY_START_PENDING"), (2, "STUDY_START_PENDING"), (3, "NOT_PARTICIPATING")] {
                try db.execute(sql: """
                    INSERT INTO enrollments (id, state, sponsor_id, masked_code, backend_url, server_enrollment_id, created_at, updated_at)
                    VALUES (?, ?, 'sponsor-ab', 'AB-***-*****', 'http://127.0.0.1:9', ?, 1, 1)
                    """, arguments: [id, state, "enr-\(id)"])
            }
            try db.execute(sql: """
                INSERT INTO credential_holds (credential, reason, since) VALUES
                    ('enrollment.1.access', 'revoked: HTTP 401 on the status check', 5),
                    ('enrollment.2.access', 'study start pending (ENR-13)', 5),
                    ('enrollment.3.access', 'revoked: HTTP 401 on sync', 5),
                    ('station', 'HTTP 401', 5)
                """)
        }
        try before.close()

        let after = try EdgeDatabase(path: path, migrations: EnrollmentSchema.migrations)
        defer { try? after.close() }
        let store = EnrollmentStore(database: after)
        let stuck = try store.enrollment(1)
        #expect(stuck.state == .notParticipating)
        #expect(stuck.lifecycle.history.last?.from == .studyStartPending)
        #expect(stuck.lifecycle.history.last?.cause == "revoked: HTTP 401 on the status check (recorded when edge was upgraded)")
        #expect(try store.enrollment(2).state == .studyStartPending)
        let kinds = Dictionary(uniqueKeysWithValues: try SyncState(database: after).holds().map { ($0.credential, $0.kind) })
        #expect(kinds == ["enrollment.1.access": Enrollments.revokedHold, "enrollment.2.access": Enrollments.studyStartHold,
                          "enrollment.3.access": Enrollments.revokedHold, "station": HoldKind.credential])
    }

    @Test func transientErrorsNeverRevoke() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let enrollment = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed)
            clinic.standin.faults.add(.status, pathPrefix: APIPath.enrollmentStatus, times: 1, parameters: FaultParameters(status: 500))
            await #expect(throws: EnrollmentError.self) { try await enrollments.check(enrollment.id) }
            // A rejected token whose refresh meets a server error: undecided, nothing erased.
            clinic.standin.faults.add(.status, pathPrefix: APIPath.enrollmentRefresh, times: 1, parameters: FaultParameters(status: 503))
            #expect(clinic.standin.backend.revoke(.prefix("at."), code: .tokenRevoked) > 0)
            let verdict = await enrollments.credentialRejected(enrollment.accessSecret, status: 403, code: "TOKEN_REVOKED")
            guard case .undecided = verdict else { Issue.record("verdict \(verdict)"); return }
            #expect(try enrollments.store.enrollment(enrollment.id).state == .enrolled)
            #expect(try clinic.vault.secret(enrollment.accessSecret) != nil)
        }
    }

    // MARK: ENR-13: Study Start

    @Test func dataQueuedBeforeApprovalIsSentExactlyOnceAfterIt() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let enrollment = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            #expect(enrollment.state == .studyStartPending)
            let note = try enrollments.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "baseline"}"#.utf8), for: enrollment.id)
            let sender = try clinic.sender(enrollments)

            // Pending: nothing for the enrollment goes out, however often the sender runs.
            for _ in 0..<3 { _ = await sender.drain(manual: true) }
            #expect(clinic.pushed(kind: "CLINIC_NOTE").isEmpty)
            #expect(clinic.pushed(kind: Enrollments.eventKind).isEmpty)
            #expect(try await enrollments.check(enrollment.id).state == .studyStartPending)

            // Approved on the server; the check sees it and releases the queue.
            #expect(clinic.standin.backend.approveStudyStart(enrollmentID: "enr-ab-0001") != nil)
            let approved = try await enrollments.check(enrollment.id)
            #expect(approved.state == .enrolled)
            #expect(approved.lifecycle.history.last?.cause == "Study Start approved (status check)")
            for _ in 0..<3 { _ = await sender.drain(manual: true) }
            #expect(clinic.standin.backend.applications(ofKey: note.message.idempotencyKey) == 1)
            #expect(clinic.pushed(kind: "CLINIC_NOTE").count == 1)
            // The history went too, in order, stamped with the device (ENR-15).
            let events = clinic.pushed(kind: Enrollments.eventKind)
            #expect(events.compactMap { $0.payload["to"]?.stringValue } == ["STUDY_START_PENDING", "ENROLLED"])
            let device = try clinic.vault.deviceID()
            #expect(events.allSatisfy { $0.deviceUUID == device && $0.payload["device_uuid"]?.stringValue == device })
            for event in events {
                try PythonCheck.validate(json: Data(try ContractCoding.encode(event.payload)), openAPIComponent: "EnrollmentEvent")
            }
            #expect(clinic.requests(APIPath.syncPush).allSatisfy { $0.headers["x-device-id"] == device || $0.headers["X-Device-Id"] == device })
        }
    }

    @Test func aPulledApprovalShortCutsThePoll() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let enrollment = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            let change = SyncChange(id: "c1", stream: "enrollment:enr-ab-0001", kind: "ENROLLMENT_STATUS", changedAt: "2026-11-25T10:00:00+00:00",
                                    payload: .object(["enrollment_id": .string("enr-ab-0001"), "status": .string("ENROLLED")]))
            let published = try await clinic.database.dbWriter.write { db in try enrollments.applyPulled(db, [change]) }
            #expect(published.count == 1)
            let approved = try enrollments.store.enrollment(enrollment.id)
            #expect(approved.state == .enrolled)
            #expect(approved.lifecycle.history.last?.cause == "Study Start approved (pushed change)")
            #expect(clinic.requests(APIPath.enrollmentStatus).isEmpty)
        }
    }

    // MARK: ENR-14: re-enrollment

    @Test func reenrollmentKeepsThePatientAndSendsTheBacklogWithItsTimestamps() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            try clinic.vault.withVault { vault throws(VaultError) in try vault.put(SecureBytes(Array(Clinic.stationToken.utf8)), name: SecretName("sync.token")) }
            let first = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            _ = clinic.standin.backend.approveStudyStart(enrollmentID: "enr-ab-0001")
            _ = try await enrollments.check(first.id)
            #expect(clinic.standin.backend.revoke(.enrollment("enr-ab-0001"), code: .patientDisconnected) == 2)
            _ = try? await enrollments.check(first.id)
            #expect(try enrollments.store.enrollment(first.id).state == .notParticipating)

            // Queued while disconnected.
            let backlog = try enrollments.record(kind: "CLINIC_NOTE", payload: Array(#"{"note": "while away"}"#.utf8), for: first.id)

            // Another patient's code is refused and nothing changes.
            let error = try #require(try await Self.refusal { try await enrollments.enroll(input: DemoData.otherPatientCode, source: .typed, reenrolling: first.id) }, "re-enrolled with another patient's code")
            #expect(error.code == .differentPatient)
            #expect(error.message.contains("different patient"))
            let unchanged = try enrollments.store.enrollment(first.id)
            #expect(unchanged.state == .notParticipating)
            #expect(unchanged.patientID == "pat-7d41c2e0")
            #expect(try clinic.vault.secret(first.accessSecret) == nil)

            // The same patient's new code: the earlier approval holds, straight to ENROLLED.
            let again = try await enrollments.enroll(input: DemoData.reenrollmentCode, source: .typed, reenrolling: first.id)
            #expect(again.id == first.id)
            #expect(again.state == .enrolled)
            #expect(again.serverEnrollmentID == "enr-ab-0002")
            #expect(Array(again.lifecycle.history.suffix(2).map(\.to)) == [.linkingPending, .enrolled])
            #expect(clinic.logs.all.contains { $0.contains("event=enrollment.reenrolled") && $0.contains("backlog=") })

            let sender = try clinic.sender(enrollments)
            for _ in 0..<3 { _ = await sender.drain(manual: true) }
            let sent = try #require(clinic.pushed(kind: "CLINIC_NOTE").first)
            #expect(sent.createdAt == backlog.message.createdAt)
            #expect(clinic.standin.backend.applications(ofKey: backlog.message.idempotencyKey) == 1)
        }
    }

    @Test func cancellingReturnsALinkingEnrollmentToPersonalUse() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let linked = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            #expect(throws: EnrollmentError.self) { try enrollments.cancel(linked.id) }
            #expect(throws: EnrollmentError.self) { try enrollments.cancel(9999) }
        }
    }

    // MARK: ENR-8: the code and the tokens never reach the database or the logs

    @Test func neitherTheCodeNorTheTokensAreInTheDatabaseOrTheLogs() async throws {
        try await withStopping(Clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            _ = try? await enrollments.enroll(input: DemoData.expiredCode, source: .typed)
            let enrollment = try await enrollments.enroll(input: DemoData.linkingCode, source: .typed)
            let tokens = try [enrollment.accessSecret, enrollment.refreshSecret].compactMap { name in
                try clinic.vault.secret(name)?.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            }
            #expect(tokens.count == 2)
            try await clinic.database.dbWriter.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            var files = Data()
            for suffix in ["", "-wal", "-shm"] {
                files.append((try? Data(contentsOf: URL(fileURLWithPath: clinic.database.path + suffix))) ?? Data())
            }
            let logs = clinic.logs.text
            for secret in [DemoData.linkingCode, "AB-7KX-M4PQR", DemoData.expiredCode] + tokens {
                #expect(files.range(of: Data(secret.utf8)) == nil, "a secret in the database")
                #expect(!logs.contains(secret), "a secret in the logs")
            }
            #expect(logs.contains("event=enrollment.validation_failed") && logs.contains("type=invalid-code"))
        }
    }

    /// The enrollment error `attempt` was refused with, or nil when it enrolled; any other error
    /// is thrown on.
    static func refusal(_ attempt: () async throws -> Enrollment) async throws -> EnrollmentError? {
        do {
            _ = try await attempt()
            return nil
        } catch let error as EnrollmentError {
            return error
        }
    }
}
