import EdgeContract
import EdgeCore
import EdgeHTTP
import EdgeStore
import FoundationEssentials
import GRDB
import Logging

/// Sends the outbox (SYN-7..8): leases each stream's head, sends up to `concurrency` streams at
/// once through the rate limiter, and settles every answer by the SYN-7 table in the database
/// before leasing again. Runs as `run()` in the agent and as `drain(manual:)` for `edge sync run`.
///
/// Only one sender runs per database (`SenderLock`, taken by the caller), so every lease is
/// taken as the one owner `OutboxSender.owner`; a restarted sender resumes a killed one's
/// entries at once, re-sending them under the same idempotency keys.
public actor OutboxSender {
    public static let owner = "sender"

    public let outbox: Outbox
    public let state: SyncState
    public let configuration: SenderConfiguration
    private let transport: any HTTPTransport
    private let tokens: any TokenProvider
    private let rejections: any CredentialRejectionHandler
    private let builder: OutboxRequestBuilder
    private let limiter: RateLimiter
    private let connectivity: ConnectivityMonitor
    private let logger: Logger
    private let wallClock: @Sendable () -> Double
    /// Monotonic time before which nothing is sent: a server's Retry-After slows the whole
    /// station, not just the entry it answered (SYN-7).
    private var quietUntil: Double = 0
    private var clockSteps = WallClockStepWatch()

    public init(outbox: Outbox, transport: any HTTPTransport, tokens: any TokenProvider,
                rejections: any CredentialRejectionHandler = HoldingRejectionHandler(),
                configuration: SenderConfiguration, logger: Logger = Logger(label: "edge.sync"),
                connectivity: ConnectivityMonitor = ConnectivityMonitor(),
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.outbox = outbox
        self.state = SyncState(database: outbox.database)
        self.transport = transport
        self.tokens = tokens
        self.rejections = rejections
        self.configuration = configuration
        self.builder = OutboxRequestBuilder(baseURL: configuration.baseURL, identity: configuration.identity, kinds: configuration.kinds)
        self.limiter = RateLimiter(limit: configuration.requestsPerMinute, window: 60)
        self.connectivity = connectivity
        self.logger = logger
        self.wallClock = wallClock
    }

    // MARK: Running

    /// Sends until cancelled: drains what is due, then looks again every `pollSeconds`. While
    /// paused it resumes on a connectivity change or when the pause runs out; after a 426 it
    /// sends nothing more as this version.
    public func run(onDrain: (@Sendable (DrainReport) -> Void)? = nil) async {
        var lastOutcome: DrainReport.Outcome?
        while !Task.isCancelled {
            let report = await drain(manual: false)
            onDrain?(report)
            if report.outcome != lastOutcome {
                log(report)
                lastOutcome = report.outcome
            }
            if case .cancelled = report.outcome { return }
            if case .paused = report.outcome, connectivity.changed() {
                logger.notice("network changed; resuming sending")
                do {
                    try state.resume(now: wallClock())
                } catch {
                    // Not silent (issue #11, item 8): the pause then runs its full length.
                    logger.error("resuming after a network change failed", metadata: ["error": "\(error.message)"])
                }
                continue
            }
            do {
                try await Task.sleep(nanoseconds: UInt64(configuration.pollSeconds * 1_000_000_000))
            } catch {
                return
            }
        }
    }

    /// A wall clock stepped back while the sender runs would add the step to every wait
    /// scheduled before it, and to entries due but not yet sent: an hour back held them an
    /// hour (within `ScheduledWait.longest`, which only catches waits no one schedules). Moving
    /// those waits back by the step keeps what remained of each. A step forward moves nothing:
    /// waits end early, which costs a retry, never an entry, and what other processes enqueue
    /// after the step is already in the new time. A step while no sender runs is left to
    /// `ScheduledWait`.
    private func followClockStepBack() throws(StoreError) {
        let now = wallClock()
        guard let step = clockSteps.look(wall: now, boot: BootClock.now()), step < 0 else { return }
        let moved = try outbox.moveWaits(by: step, after: now)
        logger.notice("the wall clock went back; scheduled waits moved with it",
                      metadata: ["step_seconds": "\(Int(step.rounded()))", "entries": "\(moved)"])
    }

    /// Sends every due entry, stream by stream, until nothing is due. `manual` (an operator's
    /// `edge sync run`) ends a pause first (SYN-7).
    public func drain(manual: Bool, progress: (@Sendable (DrainReport) -> Void)? = nil) async -> DrainReport {
        var report = DrainReport()
        do {
            let now = wallClock()
            if manual {
                try state.resume(now: now)
                try outbox.makeAllDue(now: now)
                quietUntil = 0
            }
            try followClockStepBack()
            try await releaseRenewedCredentials()
            let sender = try state.sender()
            if sender.upgradeRequired(appVersion: configuration.identity.appVersion) {
                report.outcome = .upgradeRequired(message: sender.upgradeMessage ?? "The backend requires a newer version of edge.")
                return report
            }
            if sender.upgradeRequiredVersion != nil {
                // A 426 was recorded for another version: this one may try.
                try state.clearUpgradeRequired(now: now)
            }
            while true {
                if Task.isCancelled {
                    report.outcome = .cancelled
                    return report
                }
                try followClockStepBack()
                let current = try state.sender()
                if current.isPaused(now: wallClock()) {
                    report.outcome = .paused(reason: current.pauseReason ?? "consecutive failures")
                    return report
                }
                if current.upgradeRequired(appVersion: configuration.identity.appVersion) {
                    report.outcome = .upgradeRequired(message: current.upgradeMessage ?? "The backend requires a newer version of edge.")
                    return report
                }
                if quietUntil > MonotonicClock.seconds() {
                    // The server asked for quiet: this drain ends; `run()` looks again later.
                    report.outcome = .idle
                    return report
                }
                let leased = try outbox.lease(owner: Self.owner, now: wallClock(), leaseSeconds: configuration.leaseSeconds,
                                              limit: configuration.concurrency)
                if leased.isEmpty {
                    report.outcome = .idle
                    return report
                }
                let answers = await withTaskGroup(of: (OutboxEntry, Attempt).self) { group in
                    for entry in leased {
                        group.addTask { (entry, await self.attempt(entry)) }
                    }
                    var answers: [(OutboxEntry, Attempt)] = []
                    for await answer in group { answers.append(answer) }
                    return answers
                }
                for (entry, attempt) in answers.sorted(by: { $0.0.sequence < $1.0.sequence }) {
                    try await settle(entry, attempt, into: &report)
                }
                progress?(report)
            }
        } catch is CancellationError {
            report.outcome = .cancelled
        } catch let error as StoreError {
            report.outcome = .storeFailed(message: error.message)
        } catch let error as DatabaseError {
            // A settlement's own transaction (a full disk at its COMMIT, issue #30): worded like the
            // store's. The entry stays leased to this sender, which leases it again next time.
            report.outcome = .storeFailed(message: StoreError.wrapping(error, "record what the backend answered", path: outbox.database.path).message)
        } catch {
            report.outcome = .storeFailed(message: String(describing: error))
        }
        return report
    }

    // MARK: One attempt

    enum Attempt: Sendable {
        case answered(SyncAnswer)
        case noToken
        case cancelled
    }

    private func attempt(_ entry: OutboxEntry) async -> Attempt {
        let token: BearerToken?
        do {
            token = try await tokens.token(for: entry.credential)
        } catch {
            return .noToken
        }
        guard let token else { return .noToken }
        do {
            try await limiter.acquire()
        } catch {
            return .cancelled
        }
        let request: HTTPRequest
        do {
            request = try builder.request(for: entry, token: token)
        } catch {
            return .answered(.deadLetter(reason: error.message))
        }
        do {
            let response = try await transport.send(request)
            return .answered(SyncAnswer.classify(response, now: wallClock()))
        } catch {
            if error.code == .cancelled { return .cancelled }
            if error.isSecurityFailure {
                // A wrong pin or certificate is an operator's problem, not the network's: say so loudly.
                logger.error("TLS verification of the backend failed; entries wait until it is fixed",
                             metadata: ["error": "\(error.message)", "code": "\(error.code.rawValue)"])
            }
            return .answered(SyncAnswer.classify(error))
        }
    }

    /// Applies an answer to the entry (SYN-7), each outcome one transaction.
    private func settle(_ entry: OutboxEntry, _ attempt: Attempt, into report: inout DrainReport) async throws {
        let now = wallClock()
        let id = entry.id
        let owner = Self.owner
        switch attempt {
        case .cancelled:
            try outbox.retryLater(id: id, owner: owner, at: now, error: entry.lastError ?? "", countAttempt: false)
            throw CancellationError()
        case .noToken:
            // Decision: no token yet is not a failure of the backend; the entry waits and the
            // operator sees why in `edge sync status`.
            try outbox.retryLater(id: id, owner: owner, at: now + configuration.missingTokenRetrySeconds,
                                  error: "no token in the vault for credential \(entry.credential ?? Outbox.stationCredential)",
                                  countAttempt: false)
            report.retried += 1
        case .answered(let answer):
            try await settle(entry, answer, now: now, into: &report)
        }
    }

    private func settle(_ entry: OutboxEntry, _ answer: SyncAnswer, now: Double, into report: inout DrainReport) async throws {
        let id = entry.id
        let owner = Self.owner
        switch answer {
        case .done(let duplicate):
            let onDelivered = configuration.onDelivered
            try outbox.database.write { db in
                try outbox.complete(db, id: id, owner: owner)
                try outbox.recordExchange(db, .push, at: now)
                try state.recordSuccess(db, now: now)
                try onDelivered?(db, entry)
            }
            report.sent += 1
            if duplicate { report.duplicates += 1 }
        case .retry(let reason, let serverWait, let countsAgainstEntry):
            let failures = countsAgainstEntry ? entry.attempts : (try state.sender().consecutiveFailures)
            let jitter = configuration.backoff.delay(failures: failures, unit: Double.random(in: 0..<1))
            let delay = max(jitter, serverWait ?? 0)
            if let serverWait {
                quietUntil = max(quietUntil, MonotonicClock.seconds() + serverWait)
            }
            try outbox.retryLater(id: id, owner: owner, at: now + delay, error: reason, countAttempt: countsAgainstEntry)
            let after = try state.recordFailure(reason, now: now, pauseAfter: configuration.pauseAfterFailures,
                                                pauseSeconds: configuration.pauseSeconds)
            if after.consecutiveFailures == configuration.pauseAfterFailures {
                logger.warning("sending paused after \(after.consecutiveFailures) consecutive failures", metadata: ["last": "\(reason)"])
            }
            report.retried += 1
        case .credentialRejected(let status, let code):
            let verdict = await rejections.credentialRejected(entry.credential, status: status, code: code)
            switch verdict {
            case .refreshed:
                try outbox.retryLater(id: id, owner: owner, at: now, error: "HTTP \(status); token refreshed", countAttempt: false)
                report.retried += 1
            case .undecided(let reason):
                try await settle(entry, .retry(reason: "HTTP \(status); " + reason, serverWait: nil, countsAgainstEntry: false),
                                 now: now, into: &report)
            case .revoked(let reason, let kind):
                let credential = entry.credential ?? Outbox.stationCredential
                let fingerprint = try? await tokens.fingerprint(for: entry.credential)
                try state.hold(credential: credential, reason: reason, tokenFingerprint: fingerprint ?? nil, kind: kind, now: now)
                try outbox.retryLater(id: id, owner: owner, at: now, error: "held: " + reason, countAttempt: false)
                logger.warning("credential rejected; its entries are held", metadata: ["credential": "\(credential)", "status": "\(status)"])
                report.held += 1
            }
        case .conflict(let details, let changes):
            let record = try outbox.recordConflict(id: id, owner: owner, serverVersion: details, now: now)
            try state.recordSuccess(now: now)
            logger.notice("the server's version won a conflict", metadata: [
                "stream": "\(record.stream)", "sequence": "\(record.sequence)", "changes": "\(changes ?? "not described")"])
            report.conflicts += 1
        case .upgradeRequired(let message):
            try outbox.retryLater(id: id, owner: owner, at: now, error: "HTTP 426: " + message, countAttempt: false)
            try state.setUpgradeRequired(appVersion: configuration.identity.appVersion, message: message, now: now)
            report.retried += 1
        case .deadLetter(let reason):
            try outbox.deadLetter(id: id, owner: owner, reason: reason, now: now)
            try state.recordSuccess(now: now)
            logger.notice("entry dead-lettered", metadata: ["stream": "\(entry.stream)", "sequence": "\(entry.sequence)", "reason": "\(reason)"])
            report.deadLettered += 1
        }
    }

    /// AGT-6: a hold whose credential now has a different token in the vault is released, so a
    /// station given a new token sends again without an operator. Holds without a fingerprint,
    /// and holds whose kind no operator may release (a capability's own, e.g. a Study Start
    /// wait), are left alone: only their owner ends them.
    private func releaseRenewedCredentials() async throws {
        for hold in try state.holds() {
            guard hold.kind.operatorMayRelease, let rejected = hold.tokenFingerprint else { continue }
            let credential = hold.credential == Outbox.stationCredential ? nil : hold.credential
            guard let current = try? await tokens.fingerprint(for: credential), current != rejected else { continue }
            if try state.releaseIfOperatorMay(credential: hold.credential) != nil {
                logger.notice("a new token for a held credential arrived; its entries are sent again", metadata: ["credential": "\(hold.credential)"])
            }
        }
    }

    private func log(_ report: DrainReport) {
        switch report.outcome {
        case .idle, .cancelled:
            break
        case .paused(let reason):
            logger.warning("sending paused", metadata: ["reason": "\(reason)"])
        case .upgradeRequired(let message):
            logger.error("the backend requires an update; sending stopped", metadata: ["message": "\(message)"])
        case .storeFailed(let message):
            logger.error("the sync database failed", metadata: ["error": "\(message)"])
        }
    }
}
