import EdgePush
import EdgeSync
import FoundationEssentials

/// Sends what the push store owes (PSH-7..11): queued notifications and due digests, one FCM
/// message per active device of the user, with the badge of that moment; records SENT or
/// FAILED with the reason and retires tokens FCM reports dead.
///
/// Decisions:
/// - A notification counts as SENT when at least one device took it; a device that asked for a
///   retry then is not retried (the user has it on another device, and a later retry could
///   arrive after the notification stopped mattering).
/// - Retry times live in memory: after a restart a deferred notification is tried at once,
///   which FCM's collapse tag makes harmless (PSH-6).
/// - Give up after the notification's TTL or 60 minutes from its creation, whichever is first.
/// - Per-device limits 240/min and 5000/h (PSH-10): a device over its limit defers the message.
/// - Throughput (PSH-10): one pass reads a batch in one snapshot, keeps up to `maxInFlight`
///   sends open at once (the transport multiplexes them, at most 100 streams per connection),
///   and records every outcome of the batch in one transaction, so the disk is flushed once per
///   batch, not once per message.
public actor PushSender {
    public static let giveUpSeconds: Int64 = 3600
    /// Sends open at once: two HTTP/2 connections' worth of streams.
    public static let defaultMaxInFlight = 200

    private let store: PushStore
    private let client: FCMClient
    private let projectID: String
    private let clock: @Sendable () -> Double
    private let maxInFlight: Int
    /// Target key → (not before, failures so far).
    private var schedule: [String: (notBefore: Double, failures: Int)] = [:]
    private var limiters: [String: (minute: RateLimiter, hour: RateLimiter)] = [:]

    public init(store: PushStore, client: FCMClient, projectID: String, maxInFlight: Int = PushSender.defaultMaxInFlight,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.store = store
        self.client = client
        self.projectID = projectID
        self.maxInFlight = max(1, maxInFlight)
        self.clock = clock
    }

    /// The earliest time a deferred target may be tried again (wall seconds), nil when none waits.
    public var nextRetry: Double? { schedule.values.map(\.notBefore).min() }

    /// One pass over what is due now: at most `limit` notifications and `limit` digests.
    public func sendDue(limit: Int = 1000) async throws(PushError) -> PushSendReport {
        var report = PushSendReport()
        let now = clock()
        let seconds = Int64(now)
        var settlements: [PushSettlement] = []
        var jobs: [Job] = []
        var pending: [PushTarget: Pending] = [:]
        // Targets waiting for a retry are read but skipped: reading that many more keeps a
        // backlog of them (an outage, a chatty device over its limit) from hiding newer work.
        for dispatch in try store.dueDispatches(now: seconds, limit: limit + schedule.count) {
            let target = dispatch.target
            let failures = schedule[target.key]?.failures ?? 0
            if seconds >= Self.expiry(of: dispatch) {
                settlements.append(PushSettlement(target, .failed, reason: "gave up: TTL or 60 minutes passed without a successful send"))
                schedule[target.key] = nil
                continue
            }
            if let planned = schedule[target.key], planned.notBefore > now {
                report.deferred += 1
                continue
            }
            guard !dispatch.devices.isEmpty else {
                settlements.append(PushSettlement(target, .failed, reason: "no active device"))
                continue
            }
            var state = Pending(priorFailures: failures)
            for device in dispatch.devices {
                guard await allow(device.token) else {
                    state.retryAfter = min(state.retryAfter ?? 1, 1)
                    report.deferredReasons["PER_DEVICE_LIMIT", default: 0] += 1
                    continue
                }
                do {
                    let message = try Self.message(for: dispatch, token: device.token, now: seconds)
                    jobs.append(Job(target: target, token: device.token, message: message, failures: failures))
                } catch {
                    state.reasons.append(error.message)
                }
            }
            pending[target] = state
        }

        for (job, outcome) in await send(jobs) {
            guard var state = pending[job.target] else { continue }
            switch outcome {
            case .sent:
                state.sent = true
            case .pruneToken(let reason):
                report.retired.append(RetiredToken(token: job.token, reason: reason))
                state.reasons.append(reason)
            case .failed(let reason):
                state.reasons.append(reason)
            case .retry(let after, let reason):
                state.retryAfter = min(state.retryAfter ?? after, after)
                report.deferredReasons[reason, default: 0] += 1
            case .unauthenticated(let error):
                // The service account or the clock is wrong: every message would fail alike, so
                // nothing is marked failed; the operator sees the error in the log and status.
                state.retryAfter = max(state.retryAfter ?? 60, 60)
                state.reasons.append(error.message)
                report.authenticationError = error.message
            }
            pending[job.target] = state
        }

        for (target, state) in pending {
            if state.sent {
                settlements.append(PushSettlement(target, .sent))
                schedule[target.key] = nil
            } else if let retryAfter = state.retryAfter {
                schedule[target.key] = (now + retryAfter, state.priorFailures + 1)
                report.deferred += 1
            } else {
                settlements.append(PushSettlement(target, .failed, reason: state.reasons.first ?? "every device refused"))
                schedule[target.key] = nil
            }
        }
        report.prunedTokens = report.retired.count
        try store.settle(settlements, retiring: report.retired, now: seconds)
        for settlement in settlements {
            if settlement.status == .sent {
                report.sent += 1
                if case .notification(let id) = settlement.target { report.sentNotifications.append(id) }
            } else {
                report.failed += 1
            }
        }
        return report
    }

    /// One device's message for a dispatch.
    private struct Job: Sendable {
        let target: PushTarget
        let token: String
        let message: FCMMessage
        let failures: Int
    }

    /// What the devices of one target have answered so far.
    private struct Pending {
        let priorFailures: Int
        var sent = false
        var retryAfter: Double?
        var reasons: [String] = []

        init(priorFailures: Int) { self.priorFailures = priorFailures }
    }

    /// Sends `jobs` with at most `maxInFlight` open at once; outcomes in completion order.
    private func send(_ jobs: [Job]) async -> [(Job, FCMOutcome)] {
        guard !jobs.isEmpty else { return [] }
        let client = client, projectID = projectID
        return await withTaskGroup(of: (Job, FCMOutcome).self, returning: [(Job, FCMOutcome)].self) { group in
            var results: [(Job, FCMOutcome)] = []
            results.reserveCapacity(jobs.count)
            var next = 0
            func start() {
                let job = jobs[next]
                next += 1
                group.addTask { (job, await client.send(job.message, projectID: projectID, failures: job.failures)) }
            }
            while next < jobs.count, next < maxInFlight { start() }
            while let result = await group.next() {
                results.append(result)
                if next < jobs.count { start() }
            }
            return results
        }
    }

    /// Give up after the TTL or 60 minutes, whichever comes first (PSH-9).
    private static func expiry(of dispatch: PushDispatch) -> Int64 {
        switch dispatch.item {
        case .notification(let record): min(record.expiresAt, record.createdAt + giveUpSeconds)
        case .digest(let digest): digest.releaseAt + min(FCMMessageBuilder.digestTTLSeconds, giveUpSeconds)
        }
    }

    private static func message(for dispatch: PushDispatch, token: String, now: Int64) throws(FCMError) -> FCMMessage {
        switch dispatch.item {
        case .notification(let record): try FCMMessageBuilder.message(for: record, token: token, badge: dispatch.badge, now: now)
        case .digest(let digest): try FCMMessageBuilder.message(for: digest, token: token, badge: dispatch.badge, now: now)
        }
    }

    /// PSH-10: 240 a minute and 5000 an hour per device.
    private func allow(_ token: String) async -> Bool {
        let pair = limiters[token] ?? (RateLimiter(limit: 240, window: 60, clock: clock), RateLimiter(limit: 5000, window: 3600, clock: clock))
        limiters[token] = pair
        guard await pair.hour.tryAcquire() else { return false }
        return await pair.minute.tryAcquire()
    }
}
