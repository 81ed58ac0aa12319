import EdgeContract
import GRDB

/// Where notifications come from besides the CLI (PSH-1): pulled changes of the sync core and
/// the agent's own events (RCV-7: a confirmed GRN raises DELIVERY_UPDATE for the receiving team).
/// Each runs inside the transaction of what raised it, so the notification is durable exactly
/// when the pulled page or the completed outbox entry is.
public struct PushIntake: Sendable {
    public static let notificationKind = "NOTIFICATION"
    public static let inboxOpenedKind = "INBOX_OPENED"
    public static let approvalResolvedKind = "APPROVAL_RESOLVED"
    /// The app's delivery and open receipts, passed on by the backend (PSH-11).
    public static let receiptKind = "PUSH_RECEIPT"
    /// Every kind the intake applies, for the agent's router.
    public static let kinds = [notificationKind, inboxOpenedKind, approvalResolvedKind, receiptKind]
    /// A pulled notification without `ttl_seconds` is worth delivering for a day.
    public static let defaultTTLSeconds: Int64 = 24 * 3600

    public let store: PushStore
    /// The users a confirmed GRN notifies (`push.receiving_team`).
    public let receivingTeam: [String]

    public init(store: PushStore, receivingTeam: [String] = []) {
        self.store = store
        self.receivingTeam = receivingTeam
    }

    /// Applies the push changes of a pulled page; other kinds are left to their capabilities.
    ///
    /// Decision: a pulled change with a bad payload is refused and reported, not thrown: throwing
    /// would roll back the page and pull the same bad change again for ever. Its TTL counts from
    /// receipt (`now`): the station's clock is the one the TTL will be judged by.
    public func apply(_ db: Database, _ changes: [SyncChange], now: Int64) throws -> PushIntakeReport {
        var report = PushIntakeReport()
        for change in changes {
            switch change.kind {
            case Self.notificationKind:
                do {
                    let payload = try ContractCoding.decode(PushNotificationChange.self, from: ContractCoding.encode(change.payload))
                    _ = try store.accept(db, try Self.notification(payload, now: now), now: now)
                    report.notifications += 1
                } catch let error as PushError {
                    report.refused.append("\(change.id): \(error.message)")
                } catch is DecodingError {
                    report.refused.append("\(change.id): the payload is not a notification (see PushNotificationChange in models/openapi.json)")
                }
            case Self.inboxOpenedKind, Self.approvalResolvedKind:
                guard let event = try? ContractCoding.decode(PushUserEvent.self, from: ContractCoding.encode(change.payload)),
                      (try? PushPreferences.validateUserID(event.userID)) != nil else {
                    report.refused.append("\(change.id): the payload names no valid user_id")
                    continue
                }
                if change.kind == Self.inboxOpenedKind {
                    try store.inboxOpened(db, userID: event.userID, now: now)
                } else {
                    try store.approvalResolved(db, userID: event.userID, now: now)
                }
                report.badgeEvents += 1
            case Self.receiptKind:
                guard let receipt = try? ContractCoding.decode(PushReceiptChange.self, from: ContractCoding.encode(change.payload)),
                      let target = Self.target(of: receipt) else {
                    report.refused.append("\(change.id): the payload is not a receipt (see PushReceiptChange in models/openapi.json)")
                    continue
                }
                do {
                    if try store.receipt(db, target, status: receipt.status == .opened ? .opened : .delivered, now: now) {
                        report.receipts[receipt.status.rawValue, default: 0] += 1
                    }
                } catch let error as PushError {
                    report.refused.append("\(change.id): \(error.message)")
                }
            default:
                continue
            }
        }
        return report
    }

    /// The record a receipt names: exactly one of notification_id and digest_id, a local id.
    static func target(of receipt: PushReceiptChange) -> PushTarget? {
        switch (receipt.notificationID.flatMap { Int64($0) }, receipt.digestID.flatMap { Int64($0) }) {
        case (let id?, nil): .notification(id)
        case (nil, let id?): .digest(id)
        default: nil
        }
    }

    /// RCV-7: the backend confirmed a GRN (`payload` is the outbox entry's GRNConfirmRequest):
    /// one DELIVERY_UPDATE per receiving-team member. Returns how many were recorded.
    @discardableResult
    public func grnConfirmed(_ db: Database, payload: [UInt8], now: Int64) throws -> Int {
        guard !receivingTeam.isEmpty else { return 0 }
        // Our own entry; should it not decode, the team still hears that goods were received.
        let grn = try? ContractCoding.decode(GRNConfirmRequest.self, from: payload)
        let po = grn?.poNumber
        let lines = grn?.lines.count ?? 0
        let title = po.map { "Goods received: \($0)" } ?? "Goods received"
        let body = lines == 1 ? "1 line confirmed at the dock" : "\(lines) lines confirmed at the dock"
        var recorded = 0
        for userID in receivingTeam {
            // A PO number too odd for a title or link (it is our own data, but still) gives the
            // plain notice rather than failing the transaction that completes the GRN.
            guard let notification = (try? PushNotification(userID: userID, type: .deliveryUpdate, priority: .normal, title: title, body: body,
                                                           deepLink: po.map { "/purchase-orders/\($0)" }, ttlSeconds: Self.defaultTTLSeconds, createdAt: now))
                    ?? (try? PushNotification(userID: userID, type: .deliveryUpdate, priority: .normal, title: "Goods received", body: body,
                                              ttlSeconds: Self.defaultTTLSeconds, createdAt: now)) else { continue }
            _ = try store.accept(db, notification, now: now)
            recorded += 1
        }
        return recorded
    }

    static func notification(_ payload: PushNotificationChange, now: Int64) throws(PushError) -> PushNotification {
        guard let type = NotificationType(rawValue: payload.type) else {
            throw PushError(.invalidArgument, "The notification type \(payload.type) is not one the relay knows.", context: ["type": payload.type])
        }
        guard let priority = NotificationPriority(rawValue: payload.priority) else {
            throw PushError(.invalidArgument, "The priority \(payload.priority) is not URGENT, HIGH or NORMAL.", context: ["priority": payload.priority])
        }
        return try PushNotification(userID: payload.userID, type: type, priority: priority, title: payload.title, body: payload.body,
                                    deepLink: payload.deepLink, ttlSeconds: payload.ttlSeconds ?? defaultTTLSeconds, createdAt: now)
    }
}
