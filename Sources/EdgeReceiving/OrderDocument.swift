import EdgeContract
import EdgeStore

/// `edge receive PO-... --json` (models/receive-order.schema.json): the order and its lines with
/// what is outstanding, where it came from and, from the cache, how old it is.
public struct OrderDocument: Sendable, Encodable {
    public struct Line: Sendable, Encodable {
        public var lineNo: Int
        public var item: String
        public var description: String
        public var ordered: Double
        public var received: Double
        public var outstanding: Double
        public var unit: String
        /// What one scan of the item counts (RCV-9), when the order declares a usable pack (a
        /// scan of an item whose pack size is not a count is refused, `ReceiptStore.count`).
        public var packSize: Double?

        enum CodingKeys: String, CodingKey {
            case lineNo = "line_no", packSize = "pack_size"
            case item, description, ordered, received, outstanding, unit
        }
    }

    public var poNumber: String
    /// online, cache or unavailable.
    public var source: String
    public var available: Bool
    public var status: String?
    public var vendorID: String?
    public var updatedAt: String?
    /// When this station fetched it (local time with offset).
    public var fetchedAt: String?
    /// Seconds since it was fetched, from the cache.
    public var ageSeconds: Double?
    /// Why the backend was not asked or did not answer.
    public var offlineReason: String?
    public var lines: [Line]?

    enum CodingKeys: String, CodingKey {
        case poNumber = "po_number"
        case source, available, status
        case vendorID = "vendor_id"
        case updatedAt = "updated_at"
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case offlineReason = "offline_reason"
        case lines
    }

    public init(_ lookup: OrderLookup, now: Double) {
        poNumber = lookup.poNumber
        source = lookup.source
        available = lookup.order != nil
        if let order = lookup.order {
            status = order.status.rawValue
            vendorID = order.vendorID
            updatedAt = order.updatedAt
            lines = order.lines.map {
                Line(lineNo: $0.lineNo, item: $0.item, description: $0.description, ordered: $0.ordered, received: $0.received,
                     outstanding: max($0.ordered - $0.received, 0), unit: $0.unit,
                     packSize: $0.packSize.flatMap { $0.isFinite && $0 > 0 && $0 <= 1_000_000 ? $0 : nil })
            }
        }
        switch lookup {
        case .online(_, let fetched):
            fetchedAt = LocalTimestamp.string(epochSeconds: fetched)
        case .cached(let cached, let reason):
            fetchedAt = LocalTimestamp.string(epochSeconds: cached.fetchedAt)
            ageSeconds = (cached.age(now: now) * 10).rounded() / 10
            offlineReason = reason
        case .notAvailableOffline(_, let reason):
            offlineReason = reason
        }
    }

    /// The operator's view: a header, where it came from, the lines.
    public var text: [String] {
        guard available, let lines else {
            return ["\(poNumber) is not available offline: this station has never looked it up, and the backend cannot be asked (\(offlineReason ?? "offline"))."]
        }
        var out = ["\(poNumber)  \(status ?? "")  vendor \(vendorID ?? "")  updated \(updatedAt ?? "")"]
        if let ageSeconds {
            out.append("CACHED copy, fetched \(Self.age(ageSeconds)) ago (\(fetchedAt ?? "")); the backend cannot be asked: \(offlineReason ?? "offline")")
        }
        out.append("  line  item            ordered   received  outstanding  unit  description")
        for line in lines {
            out.append("  " + Self.pad(String(line.lineNo), 6) + Self.pad(line.item, 16) + Self.pad(GRNValidator.text(line.ordered), 10)
                       + Self.pad(GRNValidator.text(line.received), 10) + Self.pad(GRNValidator.text(line.outstanding), 13)
                       + Self.pad(line.unit, 6) + line.description + (line.packSize.map { " (pack of \(GRNValidator.text($0)))" } ?? ""))
        }
        return out
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// 42 s, 3 min, 5 h, 2 d.
    public static func age(_ seconds: Double) -> String {
        switch seconds {
        case ..<120: "\(Int(seconds)) s"
        case ..<7200: "\(Int(seconds / 60)) min"
        case ..<172_800: "\(Int(seconds / 3600)) h"
        default: "\(Int(seconds / 86400)) d"
        }
    }
}
