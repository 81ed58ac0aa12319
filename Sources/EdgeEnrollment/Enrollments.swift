import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeHTTP
import EdgePayloads
import EdgeStore
import EdgeSync
import EdgeVault
import FoundationEssentials
import GRDB
import Logging

/// The clinic station's enrollments (enrollment.md): linking with the portal, tokens in the
/// vault, the lifecycle, Study Start, revocation and re-enrollment. The CLI, the agent and the
/// local UI all go through this type; it holds every rule, they hold none.
///
/// Every state change is one transaction with what it causes: the history row, an
/// ENROLLMENT_EVENT outbox entry for the backend (stream `enrollment:<id>`, authenticated by the
/// enrollment's own token) and the credential hold that keeps that stream waiting outside
/// ENROLLED (ENR-13), so a crash leaves all of it or none.
public final class Enrollments: Sendable {
    public static let eventKind = "ENROLLMENT_EVENT"
    /// The pulled changes that tell the station an approval was decided (ENR-13).
    public static let statusKinds = ["ENROLLMENT_STATUS", "APPROVAL_RESOLVED"]
    /// The hold on an enrollment's entries while STUDY_START_PENDING (ENR-13): an expected wait,
    /// not a fault, that only the approval ends. No operator release: "No operator command
    /// releases that data early".
    public static let studyStartHold = HoldKind(name: "study_start", waitingFor: "approval", isFault: false, operatorMayRelease: false)
    /// The hold on a revoked enrollment's entries (ENR-10): its tokens are erased, so only a
    /// re-enrollment with the same patient's new code (ENR-14) can send them; a coordinator
    /// must act, so it is a fault, but not one a release can mend.
    public static let revokedHold = HoldKind(name: "enrollment_revoked", waitingFor: "re-enrollment with the patient's new linking code",
                                             isFault: true, operatorMayRelease: false)

    public let store: EnrollmentStore
    public let settings: EnrollmentSettings
    let outbox: Outbox
    let syncState: SyncState
    public let vault: StationVault
    let portal: PortalClient
    /// The sponsor table in force: the station's live configuration in `edge run`, so a sponsor
    /// added by SIGHUP (AGT-2) is accepted by the kiosk's checks as by `edge scan`.
    public var sponsors: SponsorTable { sponsorTable() }
    private let sponsorTable: @Sendable () -> SponsorTable
    let logger: Logger
    let clock: @Sendable () -> Double
    /// ENR-7's window is measured on the boot clock, which no wall-clock step moves (issue #30).
    let bootClock: @Sendable () -> BootInstant
    /// Enrollments whose rejected token is being refreshed, so that entries rejected together
    /// trigger one refresh, not one each.
    private let refreshing = Locked<Set<Int64>>([])

    public convenience init(outbox: Outbox, vault: StationVault, portal: PortalClient, sponsors: SponsorTable, logger: Logger,
                            facts: StationFacts = StationFacts(), clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                            bootClock: @escaping @Sendable () -> BootInstant = BootClock.now) {
        self.init(outbox: outbox, vault: vault, portal: portal, liveSponsors: { sponsors }, logger: logger, facts: facts, clock: clock, bootClock: bootClock)
    }

    /// `liveSponsors` is read at every use: the running station's configuration.
    public init(outbox: Outbox, vault: StationVault, portal: PortalClient, liveSponsors: @escaping @Sendable () -> SponsorTable, logger: Logger,
                facts: StationFacts = StationFacts(), clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                bootClock: @escaping @Sendable () -> BootInstant = BootClock.now) {
        self.store = EnrollmentStore(database: outbox.database, facts: facts)
        self.settings = portal.settings
        self.outbox = outbox
        self.syncState = SyncState(database: outbox.database)
        self.vault = vault
        self.portal = portal
        self.sponsorTable = liveSponsors
        self.logger = logger
        self.clock = clock
        self.bootClock = bootClock
    }

    // MARK: Linking (ENR-2..9, ENR-14)

    /// Reads the linking code typed, pasted or scanned input carries (any SCN-6 carrier: the bare
    /// code, a URL, a JSON card; `LinkingCode(carriedBy:)`), checks it locally (ENR-2, ENR-3:
    /// nothing is sent when that fails) and links it; see `enroll(_:reenrolling:)`.
    public func enroll(input: String, source: LinkingCodeInputSource, reenrolling id: Int64? = nil) async throws(EnrollmentError) -> Enrollment {
        let code: LinkingCode
        do {
            code = try LinkingCode(carriedBy: input, source: source, sponsors: sponsors)
        } catch {
            logFailure(.localValidation)
            throw EnrollmentError(.localValidation, error.message, context: ["reason": error.code.rawValue].merging(error.context) { a, _ in a })
        }
        return try await enroll(code, reenrolling: id)
    }

    /// Validates `code` with its sponsor's portal and records the outcome.
    ///
    /// A first enrollment is recorded in LINKING_PENDING before the call (so an interrupted one is
    /// visible and can be cancelled) and returns to PERSONAL_USE when the portal refuses it.
    /// A re-enrollment (`reenrolling`: an enrollment in NOT_PARTICIPATING) changes nothing until
    /// the portal accepts a code for the same patient: ENR-11 gives LINKING_PENDING no way back
    /// to NOT_PARTICIPATING and ENR-14 wants a refused code to change nothing, so its
    /// NOT_PARTICIPATING → LINKING_PENDING step is written with its real start time together with
    /// the outcome.
    public func enroll(_ code: LinkingCode, reenrolling id: Int64? = nil) async throws(EnrollmentError) -> Enrollment {
        let deviceID = try self.deviceID()
        var previous: Enrollment?
        if let id {
            let enrollment = try store.enrollment(id)
            guard enrollment.state == .notParticipating else {
                throw EnrollmentError(.invalidTransition, "Only an enrollment that is NOT_PARTICIPATING can be re-enrolled; enrollment \(id) is \(enrollment.state.rawValue).",
                                      context: ["id": String(id), "state": enrollment.state.rawValue])
            }
            guard enrollment.sponsorID == code.sponsor.sponsorID else {
                throw EnrollmentError(.differentPatient, "This code is for another sponsor than enrollment \(id). Use a new code from the same study.",
                                      context: ["id": String(id)])
            }
            previous = enrollment
        }
        let started = clock()
        try store.takeAttempt(now: started, boot: bootClock(), limit: settings.attemptLimit, window: settings.attemptWindow)

        var pending: Enrollment?
        if previous == nil {
            pending = try commit { db in
                let fresh = try EnrollmentStore.insert(db, sponsorID: code.sponsor.sponsorID, maskedCode: code.description,
                                                       backendURL: code.sponsor.backendURL.absoluteString, now: started)
                var linking = fresh
                try linking.lifecycle.move(to: .linkingPending, at: started, cause: "enrollment started")
                return (linking, [try EnrollmentStore.save(db, linking, after: fresh)])
            }
        }

        let answer: EnrollmentLinkResponse
        do {
            answer = try await portal.link(code, deviceUUID: deviceID)
        } catch {
            logFailure(error.code)
            if let pending {
                _ = try? commit { db in
                    var cancelled = pending
                    try cancelled.lifecycle.move(to: .personalUse, at: clock(), cause: "validation failed (\(error.code.rawValue))")
                    cancelled.updatedAt = clock()
                    return (cancelled, [try EnrollmentStore.save(db, cancelled, after: pending)])
                }
            }
            throw error
        }

        if let previous, previous.patientID != answer.patientID {
            // ENR-14: nothing changes; the tokens of the other patient are not kept anywhere.
            logger.warning("re-enrollment refused: the code belongs to another patient",
                           metadata: ["event": "enrollment.reenrollment_refused", "enrollment": "\(previous.id)"])
            throw EnrollmentError(.differentPatient,
                                  "This code belongs to a different patient than enrollment \(previous.id). Nothing was changed; ask the study coordinator for the patient's own code.",
                                  context: ["id": String(previous.id)])
        }
        guard let base = previous ?? pending else {
            throw EnrollmentError(.store, "The enrollment record is missing.")
        }
        try storeTokens(of: base, access: answer.accessToken, refresh: answer.refreshToken)

        let reenrolled = previous != nil
        let (enrollment, backlog) = try commit { db -> ((Enrollment, Int), [EnrollmentChange]) in
            guard let current = try EnrollmentStore.fetch(db, base.id) else { throw EnrollmentError(.notFound, "Enrollment \(base.id) vanished.") }
            var next = current
            let now = clock()
            if reenrolled {
                try next.lifecycle.move(to: .linkingPending, at: started, cause: "new code for re-enrollment")
            }
            next.serverEnrollmentID = answer.enrollmentID
            next.patientID = answer.patientID
            next.sponsorURL = answer.sponsorURL
            // ENR-14: the cached sponsor configuration is replaced by what the portal says now.
            next.sponsor = answer.sponsor
            next.studyStartRequired = answer.studyStartRequired
            next.maskedCode = code.description
            next.backendURL = code.sponsor.backendURL.absoluteString
            next.updatedAt = now
            if answer.studyStartRequired {
                try next.lifecycle.move(to: .studyStartPending, at: now, cause: "code validated; Study Start approval required")
            } else if reenrolled {
                try next.lifecycle.move(to: .enrolled, at: now, cause: "code validated; the earlier Study Start approval holds")
            } else {
                // ENR-11 has no LINKING_PENDING → ENROLLED for a first enrollment: both steps, one commit.
                try next.lifecycle.move(to: .studyStartPending, at: now, cause: "code validated")
                try next.lifecycle.move(to: .enrolled, at: now, cause: "Study Start approval already given")
            }
            let change = try EnrollmentStore.save(db, next, after: current)
            try enqueueEvents(db, change, deviceID: deviceID)
            let backlog = try updateHold(db, next, reason: "study start pending (ENR-13)")
            return ((next, backlog), [change])
        }
        if reenrolled {
            logger.notice("re-enrolled; the backlog is sent with its original timestamps",
                          metadata: ["event": "enrollment.reenrolled", "enrollment": "\(enrollment.id)", "backlog": "\(backlog)"])
        } else {
            logger.notice("enrollment linked", metadata: ["event": "enrollment.linked", "enrollment": "\(enrollment.id)", "state": "\(enrollment.state.rawValue)"])
        }
        return enrollment
    }

    /// ENR-7: the seconds left before another validation may be tried on this station, or nil
    /// when one may be tried now.
    public func validationCooldown() throws(EnrollmentError) -> Int? {
        try store.attemptCooldown(now: clock(), boot: bootClock(), limit: settings.attemptLimit, window: settings.attemptWindow)
    }

    /// LINKING_PENDING → PERSONAL_USE (ENR-11), e.g. an enrollment whose validation was interrupted.
    public func cancel(_ id: Int64) throws(EnrollmentError) -> Enrollment {
        try commit { db in
            guard let current = try EnrollmentStore.fetch(db, id) else { throw EnrollmentError(.notFound, "No enrollment \(id) on this station.") }
            var next = current
            try next.lifecycle.move(to: .personalUse, at: clock(), cause: "cancelled by the coordinator")
            next.updatedAt = clock()
            return (next, [try EnrollmentStore.save(db, next, after: current)])
        }
    }

    // MARK: Study Start (ENR-13)

    /// Asks the portal where the enrollment stands: approves a STUDY_START_PENDING one the server
    /// says is ENROLLED; a revoked token goes through `revoke` (after one refresh, ENR-10).
    @discardableResult
    public func check(_ id: Int64) async throws(EnrollmentError) -> Enrollment {
        let enrollment = try store.enrollment(id)
        guard enrollment.state == .studyStartPending || enrollment.state == .enrolled, let serverID = enrollment.serverEnrollmentID else {
            return enrollment
        }
        guard let token = try token(enrollment.accessSecret) else {
            throw EnrollmentError(.vault, "The vault has no token for enrollment \(id).", context: ["id": String(id)])
        }
        let status: EnrollmentStatusResponse
        do {
            status = try await portal.status(backendURL: enrollment.backendURL, enrollmentID: serverID, token: token)
        } catch where error.code == .revoked {
            let method = (error.context["method"] ?? "HTTP \(error.context["status"] ?? "")") + " on the status check"
            switch await handleRejection(id, method: method) {
            case .refreshed: return try await check(id)
            default: return try store.enrollment(id)
            }
        }
        if status.status == .enrolled, enrollment.state == .studyStartPending {
            return try commit { db in
                guard let current = try EnrollmentStore.fetch(db, id), let change = try approve(db, current, cause: "Study Start approved (status check)") else {
                    return (enrollment, [])
                }
                return (change.enrollment, [change])
            }
        }
        return enrollment
    }

    /// One poll of every STUDY_START_PENDING enrollment; failures are logged and retried next time.
    public func checkPending() async {
        guard let pending = try? store.all().filter({ $0.state == .studyStartPending }) else { return }
        for enrollment in pending {
            do {
                try await check(enrollment.id)
            } catch {
                logger.info("approval check failed", metadata: ["event": "enrollment.check_failed", "enrollment": "\(enrollment.id)", "type": "\(error.code.rawValue)"])
            }
        }
    }

    /// Pulled ENROLLMENT_STATUS / APPROVAL_RESOLVED changes, inside the page's transaction: an
    /// approval short-cuts the poll (ENR-13). Returns the changes to publish after commit.
    public func applyPulled(_ db: Database, _ changes: [SyncChange]) throws -> [EnrollmentChange] {
        var published: [EnrollmentChange] = []
        for change in changes {
            guard case .object(let fields) = change.payload, case .string(let serverID)? = fields["enrollment_id"],
                  fields["status"] == .string(EnrollmentStatusResponse.Status.enrolled.rawValue) || fields["approved"] == .bool(true),
                  let enrollment = try EnrollmentStore.fetch(db, serverID: serverID),
                  let approved = try approve(db, enrollment, cause: "Study Start approved (pushed change)")
            else { continue }
            published.append(approved)
        }
        return published
    }

    /// STUDY_START_PENDING → ENROLLED with its event, releasing what was queued (exactly once:
    /// the entries were only held, never copied).
    func approve(_ db: Database, _ current: Enrollment, cause: String) throws -> EnrollmentChange? {
        guard current.state == .studyStartPending else { return nil }
        var next = current
        try next.lifecycle.move(to: .enrolled, at: clock(), cause: cause)
        next.updatedAt = clock()
        let change = try EnrollmentStore.save(db, next, after: current)
        try enqueueEvents(db, change, deviceID: try deviceID())
        let released = try updateHold(db, next, reason: "")
        logger.notice("Study Start approved; queued data released",
                      metadata: ["event": "enrollment.approved", "enrollment": "\(next.id)", "released": "\(released)"])
        return change
    }

    // MARK: Data for an enrollment (ENR-13)

    /// Queues data for the backend on the enrollment's stream and credential. It is sent only in
    /// ENROLLED; queued before (STUDY_START_PENDING) or while revoked, it waits for the approval or
    /// the re-enrollment and then goes with its original timestamp (ENR-13, ENR-14).
    @discardableResult
    public func record(kind: String, payload: [UInt8], for id: Int64) throws(EnrollmentError) -> OutboxEntry {
        try commit { db in
            guard let enrollment = try EnrollmentStore.fetch(db, id) else { throw EnrollmentError(.notFound, "No enrollment \(id) on this station.") }
            guard enrollment.serverEnrollmentID != nil else {
                throw EnrollmentError(.invalidTransition, "Enrollment \(id) was never linked; there is nothing to send its data to.")
            }
            return (try outbox.enqueue(db, stream: enrollment.stream, kind: kind, payload: payload, credential: enrollment.accessSecret, now: clock()), [])
        }
    }

    // MARK: Shared steps

    /// The hold matching the state (ENR-13): held outside ENROLLED, released in it. Returns how
    /// many entries a release let go (the backlog, ENR-14).
    @discardableResult
    func updateHold(_ db: Database, _ enrollment: Enrollment, reason: String) throws -> Int {
        if enrollment.state.sends {
            let waiting = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM outbox WHERE credential = ?", arguments: [enrollment.accessSecret]) ?? 0
            try syncState.release(db, credential: enrollment.accessSecret)
            return waiting
        }
        try syncState.hold(db, credential: enrollment.accessSecret, reason: reason, kind: Self.holdKind(enrollment.state), now: clock())
        return 0
    }

    /// The kind of hold a state keeps its entries under: Study Start's wait, or a revocation's
    /// (NOT_PARTICIPATING, and any other state a revocation meets).
    static func holdKind(_ state: EnrollmentState) -> HoldKind {
        state == .studyStartPending ? studyStartHold : revokedHold
    }

    /// One ENROLLMENT_EVENT per transition, stamped with the device (ENR-15) and the local time
    /// with its offset (SYN-10). Only once the server knows the enrollment.
    func enqueueEvents(_ db: Database, _ change: EnrollmentChange, deviceID: String) throws {
        guard let serverID = change.enrollment.serverEnrollmentID else { return }
        for transition in change.transitions {
            let event = EnrollmentEvent(deviceUUID: deviceID, enrollmentID: serverID, sponsorID: change.enrollment.sponsorID,
                                        from: transition.from.rawValue, to: transition.to.rawValue,
                                        at: LocalTimestamp.string(epochSeconds: transition.at), cause: transition.cause)
            _ = try outbox.enqueue(db, stream: change.enrollment.stream, kind: Self.eventKind, payload: try ContractCoding.encode(event),
                                   credential: change.enrollment.accessSecret, now: transition.at)
        }
    }

    /// Runs `body` in one write transaction and tells observers what it changed once committed.
    func commit<T>(_ body: (Database) throws -> (T, [EnrollmentChange])) throws(EnrollmentError) -> T {
        let (value, changes) = try store.write(body)
        store.publish(changes)
        return value
    }

    func deviceID() throws(EnrollmentError) -> String {
        do {
            return try vault.deviceID()
        } catch {
            throw EnrollmentError(.vault, "The vault could not give the device id: \(error.message)")
        }
    }

    func token(_ name: String) throws(EnrollmentError) -> BearerToken? {
        do {
            return try vault.secret(name)?.withUnsafeBytes { BearerToken(String(decoding: $0, as: UTF8.self)) }
        } catch {
            throw EnrollmentError(.vault, "The vault could not give the enrollment's token: \(error.message)")
        }
    }

    /// ENR-9: the tokens go to the vault and nowhere else; a refresh token the portal did not
    /// give is removed so an old one cannot be used.
    func storeTokens(of enrollment: Enrollment, access: String, refresh: String?) throws(EnrollmentError) {
        do {
            let accessName = try SecretName(enrollment.accessSecret)
            let refreshName = try SecretName(enrollment.refreshSecret)
            try vault.withVault { vault throws(VaultError) in
                try vault.put(SecureBytes(Array(access.utf8)), name: accessName)
                if let refresh {
                    try vault.put(SecureBytes(Array(refresh.utf8)), name: refreshName)
                } else if (try? vault.list())?.contains(where: { $0.name == refreshName.value }) == true {
                    try vault.remove(refreshName)
                }
            }
        } catch {
            throw EnrollmentError(.vault, "The vault could not keep the enrollment's tokens: \(error.message)")
        }
    }

    /// ENR-8: failures are logged with their type (and the log line's time) only.
    func logFailure(_ type: EnrollmentErrorCode) {
        logger.notice("linking code validation failed", metadata: ["event": "enrollment.validation_failed", "type": "\(type.rawValue)"])
    }

    func beginRefresh(_ id: Int64) -> Bool { refreshing.withLock { $0.insert(id).inserted } }
    func endRefresh(_ id: Int64) { _ = refreshing.withLock { $0.remove(id) } }
}

/// The body of an ENROLLMENT_EVENT outbox entry (models/openapi.json).
struct EnrollmentEvent: Encodable {
    let deviceUUID: String
    let enrollmentID: String
    let sponsorID: String
    let from: String
    let to: String
    let at: String
    let cause: String

    enum CodingKeys: String, CodingKey {
        case deviceUUID = "device_uuid"
        case enrollmentID = "enrollment_id"
        case sponsorID = "sponsor_id"
        case from, to, at, cause
    }
}
