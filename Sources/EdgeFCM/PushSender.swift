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
public actor PushSender {
    public static let giveUpSeconds: Int64 = 3600

    private let store: PushStore
    private let client: FCMClient
    private let projectID: String
    private let clock: @Sendable () -> Double
    /// Record or digest key → (not before, failures so far).
    private var schedule: [String: (notBefore: Double, failures: Int)] = [:]
    private var limiters: [String: (minute: RateLimiter, hour: RateLimiter)] = [:]

    public init(store: PushStore, client: FCMClient, projectID: String,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.store = store
        self.client = client
        self.projectID = projectID
        self.clock = clock
    }

    /// One pass over everything due now.
    public func sendDue(limit: Int = 500) async throws(PushError) -> PushSendReport {
        var report = PushSendReport()
        let now = clock()
        let seconds = Int64(now)
        for record in try store.queuedNotifications(limit: limit) {
            let expiresAt = min(record.expiresAt, record.createdAt + Self.giveUpSeconds)
            try await deliver(key: "n\(record.id)", userID: record.userID, expiresAt: expiresAt, now: now, into: &report,
                              build: { token, badge throws(FCMError) in
                                  try FCMMessageBuilder.message(for: record, token: token, badge: badge, now: seconds)
                              },
                              mark: { status, reason throws(PushError) in
                                  try self.store.updateStatus(notificationID: record.id, to: status, reason: reason, now: seconds)
                              })
        }
        for digest in try store.dueDigests(now: seconds) {
            let expiresAt = digest.releaseAt + min(FCMMessageBuilder.digestTTLSeconds, Self.giveUpSeconds)
            try await deliver(key: "d\(digest.id)", userID: digest.userID, expiresAt: expiresAt, now: now, into: &report,
                              build: { token, badge throws(FCMError) in
                                  try FCMMessageBuilder.message(for: digest, token: token, badge: badge, now: seconds)
                              },
                              mark: { status, reason throws(PushError) in
                                  try self.store.updateDigestStatus(digestID: digest.id, to: status, reason: reason, now: seconds)
                              })
        }
        return report
    }

    private func deliver(key: String, userID: String, expiresAt: Int64, now: Double, into report: inout PushSendReport,
                         build: (String, Int) throws(FCMError) -> FCMMessage,
                         mark: (NotificationStatus, String?) throws(PushError) -> Void) async throws(PushError) {
        let seconds = Int64(now)
        if Int64(now) >= expiresAt {
            try mark(.failed, "gave up: TTL or 60 minutes passed without a successful send")
            schedule[key] = nil
            report.failed += 1
            return
        }
        if let planned = schedule[key], planned.notBefore > now {
            report.deferred += 1
            return
        }
        let devices = try store.activeDevices(for: userID)
        guard !devices.isEmpty else {
            try mark(.failed, "no active device")
            report.failed += 1
            return
        }
        let badge = try store.badge(for: userID)
        var sent = false
        var retryAfter: Double?
        var failures: [String] = []
        for device in devices {
            guard await allow(device.token) else {
                retryAfter = min(retryAfter ?? 1, 1)
                continue
            }
            let message: FCMMessage
            do {
                message = try build(device.token, badge)
            } catch {
                failures.append(error.message)
                continue
            }
            switch await client.send(message, projectID: projectID, failures: schedule[key]?.failures ?? 0) {
            case .sent:
                sent = true
            case .pruneToken(let reason):
                _ = try store.retireDevice(token: device.token, reason: reason, now: seconds)
                report.prunedTokens += 1
                failures.append(reason)
            case .failed(let reason):
                failures.append(reason)
            case .retry(let after, _):
                retryAfter = min(retryAfter ?? after, after)
            case .unauthenticated(let error):
                // The service account or the clock is wrong: every message would fail alike, so
                // nothing is marked failed; the operator sees the error in the log and status.
                retryAfter = max(retryAfter ?? 60, 60)
                failures.append(error.message)
            }
        }
        if sent {
            try mark(.sent, nil)
            schedule[key] = nil
            report.sent += 1
        } else if let retryAfter {
            let failuresSoFar = (schedule[key]?.failures ?? 0) + 1
            schedule[key] = (now + retryAfter, failuresSoFar)
            report.deferred += 1
        } else {
            try mark(.failed, failures.first ?? "every device refused")
            schedule[key] = nil
            report.failed += 1
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
