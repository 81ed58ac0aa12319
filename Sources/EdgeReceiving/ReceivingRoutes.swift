import EdgeAgent
import EdgeContract
import GRDB

/// The receiving dock's routes on the station's ChangeRouter (AGT-5): delivered GRNs mark their
/// ledger record applied (in the settling transaction), and pulled order changes refresh the
/// offline cache (in the page's transaction). Used by the agent's capability and by
/// `edge receive --confirm` when it sends itself, so both settle a GRN the same way.
public enum ReceivingRoutes {
    /// The pulled change kind of an order update (the stand-in's and the contract's `PO_UPDATED`).
    public static let orderChangedKind = "PO_UPDATED"

    public static func register(on router: ChangeRouter, dock: ReceivingDock) {
        let ledger = dock.ledger
        let cache = dock.cache
        router.onDelivered(kind: GRNLedger.kind) { db, entry, now in
            try ledger.delivered(db, entry, now: now)
        }
        router.onPulled(kinds: [orderChangedKind]) { db, changes, now in
            try cache.apply(db, changes, now: now)
        }
    }
}
