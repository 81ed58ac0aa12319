import EdgeFCM
import FoundationEssentials
import Synchronization

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
/// - Throughput (PSH-10): sending is a pipeline. Up to `maxInFlight` sends stay open (the
///   transport multiplexes them, at most 100 streams per connection); the next batch is read
///   while the previous one is still being sent, and finished targets are recorded together,
///   one transaction (one disk flush) per `settleBatch` targets or `settleSeconds`, whichever
///   comes first. A record is written before its send and updated only after the answer
///   (PSH-11), so a crash leaves at most the unrecorded answers to be sent again, under the
///   same collapse tag.
///
///   Why: the earlier pass read a batch, sent it, waited for its last answer, recorded it, and
///   only then read the next. Measured on the 2-core station (Benchmarks section 6, 20,000
///   notifications at saturation, timestamps per phase): per 1,000 notifications 15 ms reading,
///   25-50 ms building messages and 8 ms recording with no send open, then the batch's tail
///   with few open: ~280 ms a batch of which ~200 ms sending. As a pipeline, 198 of the 200
///   sends are open on average while a backlog lasts (sampled every 5 ms); reads run in a child
///   task so answers keep being taken in meanwhile.
public final class PushSender: Sendable {
    public static let giveUpSeconds: Int64 = 3600
    /// Sends open at once: two HTTP/2 connections' worth of streams.
    public static let defaultMaxInFlight = 200
    /// Finished targets recorded in one transaction at most this many at a time...
    ///
    /// Decision: 250 at 5,000/s is 20 transactions (20 flushes) a second; measured here, one of
    /// 100-250 targets takes 1 ms (median) to 7 ms (p90) at synchronous=FULL, in the drain,
    /// while the sends stay open.
    public static let settleBatch = 250
    /// ... or once the oldest finished one has waited this long (seconds), so a trickle is
    /// recorded promptly too.
    public static let settleSeconds = 0.05
    /// While sends are open the pipeline looks at the clock this often (seconds): to record,
    /// and to look for new work once it has caught up.
    static let tickSeconds = 0.005
    /// Once everything queued has been read, look again this often while sends are open.
    static let recheckSeconds = 0.01
    /// Deferred targets that fall due within this many seconds of each other are read back
    /// together (a broken connection defers ~100 sends with jittered delays).
    static let retryReadSeconds = 0.05

    private let store: PushStore
    private let client: FCMClient
    private let projectID: String
    private let clock: @Sendable () -> Double
    private let maxInFlight: Int
    /// What outlives a drain. Behind a mutex rather than an actor (issue #31): as an actor, each
    /// answer woke the drain on a station worker and then again on the actor (the runtime does
    /// not switch to an actor in place from a task executor), two thread wakes where one does.
    /// The lock is held for bookkeeping only, never across a read, a write or a send.
    private let memory = Mutex(Memory())

    private struct Memory {
        /// Target → when it may be tried again (wall seconds), failures so far, when to give up.
        var schedule: [PushTarget: Retry] = [:]
        /// PSH-10: 240 a minute and 5000 an hour per device; a message takes one from each, or
        /// neither when either is used up.
        var limiters = DeviceLimiterMap()
    }

    public init(store: PushStore, client: FCMClient, projectID: String, maxInFlight: Int = PushSender.defaultMaxInFlight,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.store = store
        self.client = client
        self.projectID = projectID
        self.maxInFlight = max(1, maxInFlight)
        self.clock = clock
    }

    /// The earliest time a deferred target may be tried again (wall seconds), nil when none waits.
    public var nextRetry: Double? { memory.withLock { $0.schedule.values.map(\.notBefore).min() } }

    /// One pass over what is due now: at most `limit` notifications and `limit` digests, read
    /// once, sent, recorded.
    public func sendDue(limit: Int = 1000) async throws(PushError) -> PushSendReport {
        try await drain(batch: limit, continuous: false, onSettled: nil)
    }

    /// Sends until nothing due is left: reads `batch` at a time, keeps up to `maxInFlight` sends
    /// open across batches, and records outcomes as they come (see the type's decisions).
    /// `onSettled` sees each recorded chunk's report once its transaction has committed. Returns
    /// the sum of those reports.
    public func sendAllDue(batch: Int = 1000, onSettled: (@Sendable (PushSendReport) -> Void)? = nil) async throws(PushError) -> PushSendReport {
        try await drain(batch: batch, continuous: true, onSettled: onSettled)
    }

    // MARK: The pipeline

    private struct Retry {
        let target: PushTarget
        /// A digest's release time (its place in the reading order), 0 for a notification.
        let releaseAt: Int64
        let notBefore: Double
        let failures: Int
        /// The TTL or 60 minutes, whichever comes first (wall seconds).
        let giveUpAt: Double
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
        let giveUpAt: Double
        var releaseAt: Int64 = 0
        var waiting = 0
        var sent = false
        var retryAfter: Double?
        var reasons: [String] = []
    }

    private enum Event: Sendable {
        case answered(Job, FCMOutcome)
        case read(Result<[PushDispatch], PushError>, limit: Int)
        case tick
    }

    /// The state of one `drain`.
    private struct Drain {
        let batch: Int
        let continuous: Bool
        let onSettled: (@Sendable (PushSendReport) -> Void)?
        /// Everything up to here has been read in this drain.
        var cursor = DispatchCursor()
        /// Targets read and not yet settled or deferred, by target: their sends are queued or open.
        var open: [PushTarget: Pending] = [:]
        /// Messages not yet started, from `next` on.
        var queue: [Job] = []
        var next = 0
        var running = 0
        var reading = false
        var ticking = false
        /// The last read returned less than it asked for: everything queued then has been read.
        var caughtUp = false
        var lastRead = -Double.infinity
        /// When the next deferred target falls due (or must be given up): then read it back.
        var retryAt: Double?
        /// Outcomes waiting for the next transaction.
        var settlements: [PushSettlement] = []
        var chunk = PushSendReport()
        var oldestWaiting: Double?
        var total = PushSendReport()
        /// Where send tasks run: `FCMClient.preferredExecutor`, or (nil) the drain's own.
        let sendExecutor: (any TaskExecutor)?

        var unstarted: Int { queue.count - next }
    }

    private func drain(batch: Int, continuous: Bool, onSettled: (@Sendable (PushSendReport) -> Void)?) async throws(PushError) -> PushSendReport {
        var run = Drain(batch: max(1, batch), continuous: continuous, onSettled: onSettled, sendExecutor: client.preferredExecutor)
        try readFromStart(&run)
        let inbox = DrainInbox<Event>()
        let outcome: Result<PushSendReport, PushError> = await withDiscardingTaskGroup { group in
            // A read that fails (the database busy or full) stops the run, but only after the sends
            // open have been answered and recorded: what went out is not sent again.
            var failure: PushError?
            do throws(PushError) {
                while true {
                    let stopping = Task.isCancelled || failure != nil
                    while !stopping, run.running < maxInFlight, run.next < run.queue.count { start(&run, &group, inbox) }
                    if continuous, !stopping, !run.reading, run.unstarted < maxInFlight {
                        if let due = run.retryAt, clock() >= due {
                            // Deferred targets have fallen due: they lie behind the cursor.
                            do throws(PushError) {
                                try readRetries(&run)
                            } catch {
                                failure = error
                            }
                            continue
                        }
                        if !run.caughtUp || clock() - run.lastRead >= Self.recheckSeconds { read(&run, &group, inbox) }
                    }
                    let idle = run.running == 0 && !run.reading
                    if !run.settlements.isEmpty || run.chunk != PushSendReport(),
                       idle || run.settlements.count >= Self.settleBatch || clock() - (run.oldestWaiting ?? clock()) >= Self.settleSeconds {
                        try settle(&run)
                    }
                    if idle, run.unstarted == 0 || stopping, !continuous || run.caughtUp || stopping {
                        try settle(&run)
                        break
                    }
                    if run.running > 0, !run.ticking, !stopping {
                        run.ticking = true
                        group.addTask {
                            try? await Task.sleep(for: .seconds(Self.tickSeconds))
                            inbox.deposit(.tick, urgent: true)
                        }
                    }
                    // Nothing open (as `TaskGroup.next()` returning nil): nothing more will come.
                    guard run.running > 0 || run.reading || run.ticking else { break }
                    // Every answer counts when queued messages wait for a free send, or when
                    // stopping; otherwise the last one, a read or the tick wakes the drain.
                    let wakeAfter = run.unstarted > 0 || stopping ? 1 : run.running
                    for event in await inbox.take(afterAnswers: wakeAfter) {
                        if let error = handle(event, &run) { failure = error }
                    }
                }
                group.cancelAll()
                return failure.map { .failure($0) } ?? .success(run.total)
            } catch {
                // Recording failed: stop at once. Sends still open are cancelled; their targets,
                // and those whose outcome was not recorded, stay QUEUED and go out again later
                // under the same collapse tag (PSH-6).
                group.cancelAll()
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func start(_ run: inout Drain, _ group: inout DiscardingTaskGroup, _ inbox: DrainInbox<Event>) {
        let job = run.queue[run.next]
        run.next += 1
        run.running += 1
        if run.next == run.queue.count {
            run.queue.removeAll(keepingCapacity: true)
            run.next = 0
        } else if run.next >= 1024, run.next * 2 >= run.queue.count {
            // Reads append while sends start, so the queue may never empty under load: drop
            // the started part now and then (amortised) rather than let it grow for ever.
            run.queue.removeFirst(run.next)
            run.next = 0
        }
        let client = client, projectID = projectID
        // On the transport's event loop when it has one (issue #31): the answer then resumes the
        // send where it arrived, and only the drain's wake-up crosses threads.
        group.addTask(executorPreference: run.sendExecutor) {
            inbox.deposit(.answered(job, await client.send(job.message, projectID: projectID, failures: job.failures)), urgent: false)
        }
    }

    /// Reads on from the cursor in a child task, so answers keep being handled while SQLite works.
    private func read(_ run: inout Drain, _ group: inout DiscardingTaskGroup, _ inbox: DrainInbox<Event>) {
        run.reading = true
        run.lastRead = clock()
        let store = store, cursor = run.cursor, now = Int64(clock())
        let limit = run.batch + memory.withLock { $0.schedule.count }
        group.addTask {
            do throws(PushError) {
                inbox.deposit(.read(.success(try store.dueDispatches(now: now, limit: limit, after: cursor)), limit: limit), urgent: true)
            } catch {
                inbox.deposit(.read(.failure(error), limit: limit), urgent: true)
            }
        }
    }

    /// Reads from the start, here and now, when a drain begins: what was deferred before and is
    /// due now comes back with the rest.
    private func readFromStart(_ run: inout Drain) throws(PushError) {
        run.lastRead = clock()
        let limit = run.batch + memory.withLock { $0.schedule.count }
        let dispatches = try store.dueDispatches(now: Int64(clock()), limit: limit, after: DispatchCursor())
        admit(dispatches, limit: limit, &run)
        planRetries(&run)
    }

    /// Reads back the deferred targets behind the cursor that have fallen due, by target rather
    /// than by reading from the start again, so what is open is not read twice.
    ///
    /// Only targets behind the cursor: one ahead of it may also come back in a cursor read whose
    /// snapshot predates this target's settlement, and would then be sent twice. Those ahead are
    /// read by the cursor reads in turn.
    private func readRetries(_ run: inout Drain) throws(PushError) {
        let now = clock()
        let due = memory.withLock { memory in
            memory.schedule.values.filter { min($0.notBefore, $0.giveUpAt) <= now && waitsBehind($0, run) }
                .sorted { $0.notBefore < $1.notBefore }.prefix(run.batch).map(\.target)
        }
        let dispatches = try store.dispatches(for: due, now: Int64(now))
        // A target not read back is no longer QUEUED (another process settled it): nothing to retry.
        let found = Set(dispatches.map(\.target))
        memory.withLock { memory in
            for target in due where !found.contains(target) { memory.schedule[target] = nil }
        }
        admit(dispatches, &run)
        planRetries(&run, after: now + Self.retryReadSeconds)
    }

    /// When to read deferred targets back next: the earliest behind the cursor and not open, not
    /// before `after`.
    private func planRetries(_ run: inout Drain, after earliest: Double = -Double.infinity) {
        run.retryAt = nil
        memory.withLock { memory in
            for retry in memory.schedule.values where waitsBehind(retry, run) {
                let due = max(min(retry.notBefore, retry.giveUpAt), earliest)
                run.retryAt = min(run.retryAt ?? due, due)
            }
        }
    }

    /// `retry` is behind the cursor (read in this drain) and not being sent.
    private func waitsBehind(_ retry: Retry, _ run: Drain) -> Bool {
        guard run.open[retry.target] == nil else { return false }
        switch retry.target {
        case .notification(let id): return id <= run.cursor.notificationID
        case .digest(let id): return (retry.releaseAt, id) <= (run.cursor.digestReleaseAt, run.cursor.digestID)
        }
    }

    /// Takes in a child task's result; a failed read is returned.
    private func handle(_ event: Event, _ run: inout Drain) -> PushError? {
        switch event {
        case .tick:
            run.ticking = false
        case .read(let result, let limit):
            run.reading = false
            switch result {
            case .success(let dispatches): admit(dispatches, limit: limit, &run)
            case .failure(let error): return error
            }
        case .answered(let job, let outcome):
            run.running -= 1
            guard var state = run.open[job.target] else { return nil }
            switch outcome {
            case .sent:
                state.sent = true
            case .pruneToken(let reason):
                run.chunk.retired.append(RetiredToken(token: job.token, reason: reason))
                state.reasons.append(reason)
            case .failed(let reason):
                state.reasons.append(reason)
            case .retry(let after, let reason):
                state.retryAfter = min(state.retryAfter ?? after, after)
                run.chunk.deferredReasons[reason, default: 0] += 1
            case .unauthenticated(let error):
                // The service account or the clock is wrong: every message would fail alike, so
                // nothing is marked failed; the operator sees the error in the log and status.
                state.retryAfter = max(state.retryAfter ?? 60, 60)
                state.reasons.append(error.message)
                run.chunk.authenticationError = error.message
            }
            state.waiting -= 1
            run.open[job.target] = state
            if state.waiting == 0 { memory.withLock { memory in resolve(job.target, state, &run, &memory) } }
        }
        return nil
    }

    /// `admit` for a read on from the cursor (or from the start) that asked for `limit`.
    private func admit(_ dispatches: [PushDispatch], limit: Int, _ run: inout Drain) {
        var notifications = 0, digests = 0
        for dispatch in dispatches {
            if case .notification = dispatch.item { notifications += 1 } else { digests += 1 }
        }
        run.caughtUp = notifications < limit && digests < limit
        run.cursor = run.cursor.advanced(past: dispatches)
        admit(dispatches, &run)
    }

    /// Decides what to do with each dispatch read: skip (open, or waiting for its retry), fail
    /// (expired, no device), or queue one message per device.
    private func admit(_ dispatches: [PushDispatch], _ run: inout Drain) {
        let now = clock()
        let seconds = Int64(now)
        memory.withLock { memory in admit(dispatches, now: now, seconds: seconds, &run, &memory) }
    }

    private func admit(_ dispatches: [PushDispatch], now: Double, seconds: Int64, _ run: inout Drain, _ memory: inout Memory) {
        for dispatch in dispatches {
            let target = dispatch.target
            guard run.open[target] == nil else { continue }
            let planned = memory.schedule[target]
            let expiry = Self.expiry(of: dispatch)
            if seconds >= expiry {
                record(PushSettlement(target, .failed, reason: "gave up: TTL or 60 minutes passed without a successful send"), &run)
                memory.schedule[target] = nil
                continue
            }
            if let planned, planned.notBefore > now {
                run.chunk.deferred += 1
                // Now behind the cursor: read back by target when it falls due.
                let due = min(planned.notBefore, planned.giveUpAt)
                run.retryAt = min(run.retryAt ?? due, due)
                continue
            }
            guard !dispatch.devices.isEmpty else {
                record(PushSettlement(target, .failed, reason: "no active device"), &run)
                memory.schedule[target] = nil
                continue
            }
            let failures = planned?.failures ?? 0
            var state = Pending(priorFailures: failures, giveUpAt: Double(expiry))
            if case .digest(let digest) = dispatch.item { state.releaseAt = digest.releaseAt }
            for device in dispatch.devices {
                guard memory.limiters.allow(device.token, now: now) else {
                    state.retryAfter = min(state.retryAfter ?? 1, 1)
                    run.chunk.deferredReasons["PER_DEVICE_LIMIT", default: 0] += 1
                    continue
                }
                do {
                    let message = try Self.message(for: dispatch, token: device.token, now: seconds)
                    run.queue.append(Job(target: target, token: device.token, message: message, failures: failures))
                    state.waiting += 1
                } catch {
                    state.reasons.append(error.message)
                }
            }
            run.open[target] = state
            if state.waiting == 0 { resolve(target, state, &run, &memory) }
        }
    }

    /// Every device of `target` has answered (or none could be tried).
    private func resolve(_ target: PushTarget, _ state: Pending, _ run: inout Drain, _ memory: inout Memory) {
        if state.sent {
            record(PushSettlement(target, .sent), &run)
            memory.schedule[target] = nil
        } else if let retryAfter = state.retryAfter {
            // Counted from the answer, so the first retry after a 5xx is >= 10 s after it (PSH-9).
            let notBefore = clock() + retryAfter
            memory.schedule[target] = Retry(target: target, releaseAt: state.releaseAt, notBefore: notBefore,
                                         failures: state.priorFailures + 1, giveUpAt: state.giveUpAt)
            run.chunk.deferred += 1
            run.open[target] = nil
            let due = min(notBefore, state.giveUpAt)
            run.retryAt = min(run.retryAt ?? due, due)
        } else {
            record(PushSettlement(target, .failed, reason: state.reasons.first ?? "every device refused"), &run)
            memory.schedule[target] = nil
        }
    }

    /// `settlement` waits for the next transaction; its target stays open (never read again)
    /// until that has committed.
    private func record(_ settlement: PushSettlement, _ run: inout Drain) {
        if run.open[settlement.target] == nil { run.open[settlement.target] = Pending(priorFailures: 0, giveUpAt: 0) }
        run.settlements.append(settlement)
        if run.oldestWaiting == nil { run.oldestWaiting = clock() }
    }

    /// Records what has finished in one transaction and reports it.
    private func settle(_ run: inout Drain) throws(PushError) {
        guard !run.settlements.isEmpty || run.chunk != PushSendReport() else { return }
        var report = run.chunk
        report.prunedTokens = report.retired.count
        if !run.settlements.isEmpty || !report.retired.isEmpty {
            try store.settle(run.settlements, retiring: report.retired, now: Int64(clock()))
        }
        for settlement in run.settlements {
            run.open[settlement.target] = nil
            if settlement.status == .sent {
                report.sent += 1
                if case .notification(let id) = settlement.target { report.sentNotifications.append(id) }
            } else {
                report.failed += 1
            }
        }
        run.settlements.removeAll(keepingCapacity: true)
        run.chunk = PushSendReport()
        run.oldestWaiting = nil
        run.onSettled?(report)
        run.total.add(report)
    }

    // MARK: Messages and limits

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
}
