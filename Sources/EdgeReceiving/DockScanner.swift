import EdgeAgent
import EdgeContract
import EdgePayloads
import EdgeStore

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
    /// opening another order.
    public func read(_ text: String, className: String, source: String, seenAt: Double, open: Bool = false) async -> Outcome {
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
                // A GS1 label counts as its GTIN, by the quantity it carries (SCN-13), with its lot,
                // expiry and serial (RCV-10); other codes count one, or the line's pack size.
                let item = dock.countedItem(text, className: className)
                return count(item.code, quantity: item.quantity, trace: item.trace, source: source, order: order, seenAt: seenAt)
            }
        }
        let lookup = await KioskLookup.lookUp(text, className: className, camera: source, seenAt: seenAt, dock: dock)
        feed.publish(lookup)
        return .lookup(lookup)
    }

    private func count(_ text: String, quantity: Double?, trace: ReceiptStore.Trace, source: String, order: PurchaseOrder, seenAt: Double) -> Outcome {
        do throws(ReceivingError) {
            let counted = try dock.receipts.count(text, quantity: quantity, trace: trace, source: source, order: order, now: dock.now)
            feed.facts.publish(counted.receipt)
            let unit = order.lines.first { $0.lineNo == counted.lineNo }?.unit ?? ""
            let words = "Line \(counted.lineNo): \(GRNValidator.text(counted.total)) of \(GRNValidator.text(counted.outstanding)) \(unit) counted."
                + Self.traced(trace, today: String(LocalTimestamp.string(epochSeconds: dock.now).prefix(10)))
            publish(DockNotice(kind: counted.needsExcessFlag ? .excess : .counted, poNumber: order.poNumber, label: text, lineNo: counted.lineNo,
                               source: source, at: seenAt,
                               message: counted.needsExcessFlag ? words + " More than outstanding: flag the line excess before confirming." : words))
            return .counted(counted)
        } catch {
            let kind: DockNotice.Kind = switch error.code {
            case .notOnOrder: .notOnOrder
            case .alreadyCounted: .alreadyCounted
            default: .failed
            }
            return .notice(publish(DockNotice(kind: kind, poNumber: order.poNumber, label: text, source: source, at: seenAt, message: error.message)))
        }
    }

    /// The GS1 data of a count in words, and an expiry already past (`today`, the station's
    /// local date) said aloud: the item is counted (it arrived), the operator decides to flag it.
    static func traced(_ trace: ReceiptStore.Trace, today: String) -> String {
        var parts: [String] = []
        if let lot = trace.lot { parts.append("lot \(ReceivingClient.printable(lot))") }
        if let serial = trace.serial { parts.append("serial \(ReceivingClient.printable(serial))") }
        if let expiry = trace.expiry { parts.append("expires \(expiry)") }
        guard !parts.isEmpty else { return "" }
        let expired = trace.expiry.map { $0 < today } ?? false
        let sentence = parts.joined(separator: ", ")
        return " " + sentence.prefix(1).uppercased() + sentence.dropFirst() + "." + (expired ? " EXPIRED: flag the line damaged if it is refused." : "")
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
        /// A serial counted before on this receipt (RCV-10): the same item again, not counted.
        case alreadyCounted = "already-counted"
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
