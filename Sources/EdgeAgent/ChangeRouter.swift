import EdgeContract
import EdgeCore
import EdgeStore
import FoundationEssentials
import GRDB

/// Routes what the backend sends the station to the capability that registered for it (AGT-5):
/// pulled changes by `kind` (push intake today; enrollment approvals and the order cache later)
/// and settled outbox entries by `kind` (GRN results). Handlers run inside the transaction that
/// stores the page or settles the entry, so a crash applies both or neither.
///
/// Every pulled change is also stored (`pulled_changes`) whether or not a handler wants it, so a
/// capability added later can read what arrived before it.
public final class ChangeRouter: Sendable {
    public typealias PulledHandler = @Sendable (Database, [SyncChange], _ now: Double) throws -> Void
    public typealias DeliveredHandler = @Sendable (Database, OutboxEntry, _ now: Double) throws -> Void

    private let pulled = Locked<[String: [PulledHandler]]>([:])
    private let delivered = Locked<[String: [DeliveredHandler]]>([:])

    public init() {}

    /// `handler` gets, in page order, the changes of `kinds` in each pulled page.
    public func onPulled(kinds: [String], _ handler: @escaping PulledHandler) {
        pulled.withLock { table in for kind in kinds { table[kind, default: []].append(handler) } }
    }

    /// `handler` runs when an entry of `kind` has been delivered (2xx), in the settling transaction.
    public func onDelivered(kind: String, _ handler: @escaping DeliveredHandler) {
        delivered.withLock { $0[kind, default: []].append(handler) }
    }

    /// Stores a pulled page and hands each registered kind its changes.
    func apply(_ db: Database, _ changes: [SyncChange], state: SyncState, now: Double) throws {
        for change in changes {
            try state.storePulledChange(db, id: change.id, stream: change.stream, kind: change.kind,
                                        payload: try ContractCoding.encode(change.payload), changedAt: change.changedAt, now: now)
        }
        let table = pulled.withLock { $0 }
        var seen: Set<String> = []
        for kind in changes.map(\.kind) where seen.insert(kind).inserted {
            for handler in table[kind] ?? [] {
                try handler(db, changes.filter { $0.kind == kind }, now)
            }
        }
    }

    func delivered(_ db: Database, _ entry: OutboxEntry, now: Double) throws {
        for handler in delivered.withLock({ $0[entry.kind] ?? [] }) {
            try handler(db, entry, now)
        }
    }

    /// The kinds something is registered for, for status.
    public var pulledKinds: [String] { pulled.withLock { $0.keys.sorted() } }
}
