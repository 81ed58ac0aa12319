import EdgeAgent
import EdgeContract
import EdgePayloads

/// What a label read at the dock does (UI-2, RCV-9): the one place the cameras (through
/// `ReceivingService`) and the kiosk's scan field (a keyboard-wedge scanner, or typing) go
/// through, so both count and refuse the same way.
///
/// With an order open (the dock's current lookup is an available order):
/// - an item's code counts on its line (`ReceiptStore.count`); a code on no line is refused by
///   name and the order stays open; a count past what is outstanding asks for the excess flag;
/// - the same order's label refreshes it; another order's label opens that order at once when
///   nothing was entered for this one, and otherwise asks first (`DockNotice.switchOrder`; the
///   kiosk's "Open it" sends it again with `open: true`) — either way the receipt in progress
///   is kept in the database;
/// - a vendor card opens its card (the receipt stays; the order's label brings it back).
/// Without an open order every label is looked up as before.
///
/// Decisions: the wedge and typed codes always count, every scan is a deliberate act; a camera
/// counts only item labels (material, product/GTIN: a carton's other codes, a shipping label's
/// SSCC, must not be refused aloud every time the camera sees them), once per appearance: the
/// repeat filter reports a code again only after it has been out of view for `station.repeat_gap`.
public struct DockScanner: Sendable {
    public let dock: ReceivingDock
    public let feed: KioskFeed

    public init(dock: ReceivingDock, feed: KioskFeed) {
        self.dock = dock
        self.feed = feed
    }

    /// What came of a read.
    public enum Outcome: Sendable {
        /// Looked up and made the dock's current lookup.
        case lookup(KioskLookup)
        /// Counted on the open order.
        case counted(ReceiptStore.Counted)
        /// Not counted and not opened: why, told to every screen as a `DockNotice` too.
        case notice(DockNotice)
    }

    /// The order the dock has open: the current lookup when it is an available order whose
    /// receipt was not confirmed since it was opened.
    public var openOrder: PurchaseOrder? {
        guard case .order(let lookup)? = feed.latest?.content, let order = lookup.order, feed.confirmedOrder != order.poNumber else { return nil }
        return order
    }

    /// `source`: the camera's name, or `KioskLookup.keyboard`; `open`: the operator confirmed
    /// opening another order. `quantity`: what one scan counts (1; a code that carries a count
    /// says so).
    public func read(_ text: String, className: String, source: String, seenAt: Double, quantity: Double = 1, open: Bool = false) async -> Outcome {
        if let order = openOrder {
            switch className {
            case BuiltInPayloadClass.purchaseOrder.rawValue:
                let asked = (try? dock.purchaseOrderNumber(text)) ?? text
                if asked != order.poNumber, !open, ((try? dock.receipts.receipt(order.poNumber)) ?? nil) != nil {
                    return .notice(publish(DockNotice(kind: .switchOrder, poNumber: order.poNumber, label: asked, source: source, at: seenAt,
                                                      message: "\(asked) was scanned. Open it? The receipt for \(order.poNumber) is kept.")))
                }
            case BuiltInPayloadClass.vendor.rawValue:
                break
            default:
                // A GS1 label counts as its GTIN, by the quantity it carries (SCN-13).
                let item = dock.countedItem(text, className: className)
                return count(item.code, quantity: item.quantity ?? quantity, source: source, order: order, seenAt: seenAt)
            }
        }
        let lookup = await KioskLookup.lookUp(text, className: className, camera: source, seenAt: seenAt, dock: dock)
        feed.publish(lookup)
        return .lookup(lookup)
    }

    private func count(_ text: String, quantity: Double, source: String, order: PurchaseOrder, seenAt: Double) -> Outcome {
        do throws(ReceivingError) {
            let counted = try dock.receipts.count(text, quantity: quantity, source: source, order: order, now: dock.now)
            feed.facts.publish(counted.receipt)
            let unit = order.lines.first { $0.lineNo == counted.lineNo }?.unit ?? ""
            let words = "Line \(counted.lineNo): \(GRNValidator.text(counted.total)) of \(GRNValidator.text(counted.outstanding)) \(unit) counted."
            publish(DockNotice(kind: counted.needsExcessFlag ? .excess : .counted, poNumber: order.poNumber, label: text, lineNo: counted.lineNo,
                               source: source, at: seenAt,
                               message: counted.needsExcessFlag ? words + " More than outstanding: flag the line excess before confirming." : words))
            return .counted(counted)
        } catch {
            return .notice(publish(DockNotice(kind: error.code == .notOnOrder ? .notOnOrder : .failed, poNumber: order.poNumber, label: text, source: source, at: seenAt, message: error.message)))
        }
    }

    @discardableResult
    private func publish(_ notice: DockNotice) -> DockNotice {
        feed.facts.publish(notice)
        return notice
    }
}

/// What the dock tells every screen after a read that did not open a lookup (RCV-9): counted,
/// counted past outstanding, refused (not on the order), or another order's label waiting for
/// the operator's word.
public struct DockNotice: StationFact, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case counted, excess
        case notOnOrder = "not-on-order"
        /// The count could not be kept (the database); nothing changed.
        case failed
        case switchOrder = "switch"
    }

    public let kind: Kind
    /// The open order.
    public let poNumber: String
    /// What was read (an item code, or the other order's number); never a secret.
    public let label: String
    public var lineNo: Int?
    public let source: String
    public let at: Double
    public let message: String

    public init(kind: Kind, poNumber: String, label: String, lineNo: Int? = nil, source: String, at: Double, message: String) {
        self.kind = kind
        self.poNumber = poNumber
        self.label = label
        self.lineNo = lineNo
        self.source = source
        self.at = at
        self.message = message
    }
}
