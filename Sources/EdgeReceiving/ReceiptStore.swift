import EdgeContract
import EdgeStore
import FoundationEssentials
import GRDB

/// Receipts in progress in the station database (RCV-8, RCV-9): every edit and every count is
/// its own short transaction, committed before it is answered, so a reload, another screen, an
/// agent restart or a power cut finds the receipt as the operator left it. One receipt per
/// order; it ends when its GRN is queued (`ReceivingDock.confirm`, same transaction) or on the
/// operator's "Discard".
///
/// Decisions: a count and a typed quantity are the same number (typing replaces what was
/// counted; counting adds to what was typed); undo takes back the newest count. A photo taken
/// for the receipt is written to the photo directory at once and named here; it is recorded for
/// upload with the GRN, and its file goes when the receipt is discarded and nothing else names it.
public struct ReceiptStore: Sendable {
    public let database: EdgeDatabase

    /// The newest counts a receipt document carries (the screen shows the last few).
    public static let countsShown = 20
    /// Hostile-input bound: counts kept per receipt; past it the operator confirms or discards.
    public static let maxCounts = 20_000

    public init(database: EdgeDatabase) {
        self.database = database
    }

    /// What a count did (RCV-9).
    public struct Counted: Sendable, Hashable {
        public let receipt: Receipt
        public let lineNo: Int
        public let quantity: Double
        /// The line's quantity in this delivery after the count, and what was outstanding.
        public let total: Double
        public let outstanding: Double
        /// More than outstanding and not flagged excess: the screen asks for the flag (the
        /// confirmation is refused until it is set, RCV-2).
        public var needsExcessFlag: Bool
    }

    // MARK: reading

    public func receipt(_ poNumber: String) throws(ReceivingError) -> Receipt? {
        try access { db in try Self.read(db, poNumber) }
    }

    /// Every receipt in progress, newest change first (status, the dock's list).
    public func all() throws(ReceivingError) -> [Receipt] {
        try access { db in
            try String.fetchAll(db, sql: "SELECT po_number FROM receiving_receipts ORDER BY updated_at DESC").compactMap { try Self.read(db, $0) }
        }
    }

    /// The receipt's GS1 data per line (`tracking(_:_:)`).
    public func tracking(_ poNumber: String) throws(ReceivingError) -> [Int: [GRNLine.Tracking]] {
        try access { db in try Self.tracking(db, poNumber) }
    }

    // MARK: changes

    /// The operator typed a line's quantity, flag or note (nil quantity: cleared). Checked
    /// against the order: the line must be on it, the quantity a plain non-negative decimal, the
    /// note at most `GRNDraft.maxNoteBytes`.
    public func edit(_ order: PurchaseOrder, lineNo: Int, received: String?, discrepancy: GRNLine.Discrepancy?, note: String?,
                     revision: Int? = nil, now: Double) throws(ReceivingError) -> Receipt {
        guard order.lines.contains(where: { $0.lineNo == lineNo }) else {
            throw ReceivingError(.invalidQuantity, "\(order.poNumber) has no line \(lineNo).", context: ["po_number": order.poNumber])
        }
        var quantity: Double?
        if let received, !received.isEmpty {
            guard let value = GRNDraft.decimal(received), value >= 0 else {
                throw ReceivingError(.invalidQuantity, "Line \(lineNo): \(ReceivingClient.printable(String(received.prefix(20)))) is not a quantity (write e.g. 10 or 2.5).",
                                     context: ["line_no": String(lineNo)])
            }
            quantity = value
        }
        let note = note.flatMap { $0.isEmpty ? nil : $0 }
        if let note, note.utf8.count > GRNDraft.maxNoteBytes {
            throw ReceivingError(.invalidQuantity, "Line \(lineNo): the note is longer than \(GRNDraft.maxNoteBytes) bytes.", context: ["line_no": String(lineNo)])
        }
        return try change(order.poNumber, revision: revision, now: now) { db in
            try db.execute(sql: """
                INSERT INTO receiving_receipt_lines (po_number, line_no, received, discrepancy, note) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (po_number, line_no) DO UPDATE SET received = excluded.received, discrepancy = excluded.discrepancy, note = excluded.note
                """, arguments: [order.poNumber, lineNo, quantity, discrepancy?.rawValue, note])
        }
    }

    /// The GS1 data a scanned item carried (RCV-10): batch/lot, expiry (ISO date), serial.
    public struct Trace: Sendable, Hashable {
        public var lot: String?
        public var expiry: String?
        public var serial: String?

        public init(lot: String? = nil, expiry: String? = nil, serial: String? = nil) {
            self.lot = lot
            self.expiry = expiry
            self.serial = serial
        }

        public static let none = Trace()
    }

    /// Counts a scanned item (RCV-9): `quantity` (what the code carries; nil: one, or the pack
    /// size the order line declares) is added to the order line whose item it is, with the GS1
    /// data it carried (RCV-10). A code on no line is refused with the code named, a serial
    /// already counted on this receipt is refused with its line named; the receipt is unchanged.
    public func count(_ code: String, quantity: Double? = nil, trace: Trace = .none, source: String, order: PurchaseOrder,
                      now: Double) throws(ReceivingError) -> Counted {
        if let quantity { try Self.check(quantity, what: "A scan counts") }
        let trace = try Self.checked(trace, quantity: quantity)
        let code = Self.trimmed(code)
        var counted: (line: PurchaseOrderLine, total: Double, quantity: Double)?
        // One transaction: the line is chosen from the receipt as it is inside it (another screen's
        // count cannot slip in between), and a code on no line writes nothing.
        let receipt = try change(order.poNumber, revision: nil, now: now, skipUnless: { db in
            guard let line = Self.line(for: code, in: order, receipt: try Self.read(db, order.poNumber)) else { return false }
            counted = (line, 0, 0)
            return true
        }) { db in
            guard let line = counted?.line else { return }
            let counts = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receiving_receipt_counts WHERE po_number = ?", arguments: [order.poNumber]) ?? 0
            guard counts < Self.maxCounts else {
                throw ReceivingError(.invalidQuantity, "This receipt already has \(Self.maxCounts) counts; confirm or discard it first.",
                                     context: ["po_number": order.poNumber])
            }
            if let serial = trace.serial,
               let earlier = try Int.fetchOne(db, sql: "SELECT line_no FROM receiving_receipt_counts WHERE po_number = ? AND serial = ?",
                                              arguments: [order.poNumber, serial]) {
                throw ReceivingError(.alreadyCounted, "Serial \(ReceivingClient.printable(serial)) was already counted on line \(earlier); it was not counted again.",
                                     context: ["po_number": order.poNumber, "line_no": String(earlier)])
            }
            // A serial is one item; otherwise the code's own count, else the line's pack size.
            let amount = trace.serial != nil ? 1 : try quantity ?? Self.packSize(line)
            let before = try Double?.fetchOne(db, sql: "SELECT received FROM receiving_receipt_lines WHERE po_number = ? AND line_no = ?",
                                              arguments: [order.poNumber, line.lineNo]) ?? nil
            let total = (before ?? 0) + amount
            counted = (line, total, amount)
            try db.execute(sql: """
                INSERT INTO receiving_receipt_lines (po_number, line_no, received) VALUES (?, ?, ?)
                ON CONFLICT (po_number, line_no) DO UPDATE SET received = excluded.received
                """, arguments: [order.poNumber, line.lineNo, total])
            try db.execute(sql: """
                INSERT INTO receiving_receipt_counts (po_number, line_no, quantity, before, code, source, counted_at, lot, expiry, serial)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [order.poNumber, line.lineNo, amount, before, String(code.prefix(200)), String(source.prefix(64)), now,
                                 trace.lot, trace.expiry, trace.serial])
        }
        guard let receipt, let (line, total, amount) = counted else {
            throw ReceivingError(.notOnOrder, "\(ReceivingClient.printable(String(code.prefix(40)))) is not on \(order.poNumber); it was not counted.",
                                 context: ["po_number": order.poNumber])
        }
        let outstanding = max(line.ordered - line.received, 0)
        let flagged = receipt.line(line.lineNo)?.discrepancy == .excess
        return Counted(receipt: receipt, lineNo: line.lineNo, quantity: amount, total: total, outstanding: outstanding,
                       needsExcessFlag: total > outstanding && !flagged)
    }

    private static func check(_ quantity: Double, what: String) throws(ReceivingError) {
        guard quantity.isFinite, quantity > 0, quantity <= 1_000_000 else {
            throw ReceivingError(.invalidQuantity, "\(what) 1 to 1000000 items (\(quantity.isFinite ? GRNValidator.text(quantity) : "not a number") given).")
        }
    }

    /// What one scan of the line's item counts: the pack size the order declares (from the
    /// backend, so checked like any input), else one.
    private static func packSize(_ line: PurchaseOrderLine) throws(ReceivingError) -> Double {
        guard let size = line.packSize else { return 1 }
        try check(size, what: "Line \(line.lineNo)'s pack size must be")
        return size
    }

    /// GS1 data as the receipt keeps it: lot and serial 1-20 characters (GS1's own limit; the
    /// parser enforces it, this guards other callers), expiry a `YYYY-MM-DD` date; a serial with a
    /// count is refused (a serial names one item).
    private static func checked(_ trace: Trace, quantity: Double?) throws(ReceivingError) -> Trace {
        for text in [trace.lot, trace.serial].compactMap({ $0 }) where text.isEmpty || text.count > GRNLine.Tracking.maxText {
            throw ReceivingError(.invalidInput, "A lot or serial number is 1 to \(GRNLine.Tracking.maxText) characters; this label's is not.")
        }
        if let expiry = trace.expiry {
            let bytes = Array(expiry.utf8)
            let shape = bytes.count == 10 && bytes.enumerated().allSatisfy { index, byte in
                index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
            guard shape else { throw ReceivingError(.invalidInput, "The expiry date \(ReceivingClient.printable(String(expiry.prefix(20)))) is not YYYY-MM-DD.") }
        }
        if let serial = trace.serial, let quantity, quantity != 1 {
            throw ReceivingError(.invalidQuantity, "The label carries serial \(ReceivingClient.printable(serial)) and a count of \(GRNValidator.text(quantity)); a serial names one item, so it was not counted.")
        }
        return trace
    }

    /// Takes back the newest count: its line returns to what it was before that count, or loses
    /// the count's quantity when it was typed over since. nil when there is nothing to undo.
    public func undo(_ poNumber: String, now: Double) throws(ReceivingError) -> Receipt? {
        guard let last = try receipt(poNumber)?.counts.first else { return nil }
        return try change(poNumber, revision: nil, now: now) { db in
            let current = try Double?.fetchOne(db, sql: "SELECT received FROM receiving_receipt_lines WHERE po_number = ? AND line_no = ?",
                                               arguments: [poNumber, last.lineNo]) ?? nil
            let before = try Double?.fetchOne(db, sql: "SELECT before FROM receiving_receipt_counts WHERE id = ?", arguments: [last.id]) ?? nil
            let after = (before ?? 0) + last.quantity
            let restored: Double? = current == after ? before : current.map { max($0 - last.quantity, 0) }
            try db.execute(sql: "UPDATE receiving_receipt_lines SET received = ? WHERE po_number = ? AND line_no = ?",
                           arguments: [restored, poNumber, last.lineNo])
            try db.execute(sql: "DELETE FROM receiving_receipt_counts WHERE id = ?", arguments: [last.id])
        }
    }

    /// A photo taken for the receipt (its JPEG written by `PhotoStore.write`), replacing
    /// `replacing` when given (a retake). At most `ReceivingDock.maxPhotos`.
    public func addPhoto(_ poNumber: String, _ photo: StoredPhoto, replacing: String? = nil, now: Double) throws(ReceivingError) -> Receipt {
        try change(poNumber, revision: nil, now: now) { db in
            if let replacing {
                try db.execute(sql: "DELETE FROM receiving_receipt_photos WHERE po_number = ? AND sha256 = ?", arguments: [poNumber, replacing])
            }
            let held = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM receiving_receipt_photos WHERE po_number = ?", arguments: [poNumber]) ?? 0
            guard held < ReceivingDock.maxPhotos else {
                throw ReceivingError(.photoFailed, "A receipt takes at most \(ReceivingDock.maxPhotos) photos; remove one first.", context: ["po_number": poNumber])
            }
            try db.execute(sql: """
                INSERT INTO receiving_receipt_photos (po_number, sha256, bytes, width, height, taken_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (po_number, sha256) DO NOTHING
                """, arguments: [poNumber, photo.sha256, photo.bytes, photo.width, photo.height, now])
        }
    }

    public func removePhoto(_ poNumber: String, sha256: String, now: Double) throws(ReceivingError) -> Receipt {
        try change(poNumber, revision: nil, now: now) { db in
            try db.execute(sql: "DELETE FROM receiving_receipt_photos WHERE po_number = ? AND sha256 = ?", arguments: [poNumber, sha256])
        }
    }

    /// The operator's "Discard": the receipt, its counts and its photo rows are gone. False when
    /// there was none.
    @discardableResult
    public func discard(_ poNumber: String) throws(ReceivingError) -> Bool {
        try access { db in try Self.delete(db, poNumber) }
    }

    /// Of `shas`, those no receipt and no GRN names any more: their files may go.
    public func unreferenced(_ shas: [String]) throws(ReceivingError) -> [String] {
        try access { db in
            try shas.filter { sha in
                try Int.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM receiving_receipt_photos WHERE sha256 = ?) + (SELECT COUNT(*) FROM receiving_photos WHERE sha256 = ?)
                    """, arguments: [sha, sha]) == 0
            }
        }
    }

    /// Ends the receipt in the transaction that queues its GRN (`ReceivingDock.confirm`): when
    /// `revision` is given it must be the receipt's, so a receipt changed in another screen is
    /// not confirmed unseen and a second confirmation of the same receipt is refused.
    static func close(_ db: Database, _ poNumber: String, revision: Int?) throws {
        if let revision {
            let current = try Int.fetchOne(db, sql: "SELECT revision FROM receiving_receipts WHERE po_number = ?", arguments: [poNumber])
            guard current == revision else {
                throw ReceivingError(.receiptChanged, current == nil
                                     ? "The receipt for \(poNumber) was already confirmed or discarded; nothing was sent again."
                                     : "The receipt for \(poNumber) changed in another screen; check it and confirm again.",
                                     context: ["po_number": poNumber])
            }
        }
        _ = try delete(db, poNumber)
    }

    // MARK: inside

    @discardableResult
    static func delete(_ db: Database, _ poNumber: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM receiving_receipts WHERE po_number = ?", arguments: [poNumber])
        return db.changesCount > 0
    }

    /// One change in its own transaction: the receipt is made on first use, its revision and
    /// time move on, and it is read back as committed.
    private func change(_ poNumber: String, revision: Int?, now: Double, _ body: (Database) throws -> Void) throws(ReceivingError) -> Receipt {
        guard let receipt = try change(poNumber, revision: revision, now: now, skipUnless: { _ in true }, body) else {
            throw ReceivingError(.storeFailed, "The receipt for \(poNumber) could not be read back.")
        }
        return receipt
    }

    /// `skipUnless`: asked first inside the transaction; false leaves everything as it was and
    /// returns nil.
    private func change(_ poNumber: String, revision: Int?, now: Double, skipUnless proceed: (Database) throws -> Bool,
                        _ body: (Database) throws -> Void) throws(ReceivingError) -> Receipt? {
        try access { db in
            guard try proceed(db) else { return nil }
            if let revision {
                let current = try Int.fetchOne(db, sql: "SELECT revision FROM receiving_receipts WHERE po_number = ?", arguments: [poNumber]) ?? 0
                guard current == revision else {
                    throw ReceivingError(.receiptChanged, "The receipt for \(poNumber) changed in another screen; it is shown as it is now.",
                                         context: ["po_number": poNumber])
                }
            }
            try db.execute(sql: """
                INSERT INTO receiving_receipts (po_number, started_at, updated_at, revision) VALUES (?, ?, ?, 1)
                ON CONFLICT (po_number) DO UPDATE SET updated_at = excluded.updated_at, revision = revision + 1
                """, arguments: [poNumber, now, now])
            try body(db)
            return try Self.read(db, poNumber)
        }
    }

    private func access<T>(_ body: (Database) throws -> T) throws(ReceivingError) -> T {
        do {
            return try database.dbWriter.write(body)
        } catch let error as ReceivingError {
            throw error
        } catch {
            throw ReceivingError(.storeFailed, "The receipt could not be saved: \(String(describing: error))")
        }
    }

    static func read(_ db: Database, _ poNumber: String) throws -> Receipt? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM receiving_receipts WHERE po_number = ?", arguments: [poNumber]) else { return nil }
        let tracking = try Self.tracking(db, poNumber)
        let lines = try Row.fetchAll(db, sql: "SELECT * FROM receiving_receipt_lines WHERE po_number = ? ORDER BY line_no", arguments: [poNumber]).map { line in
            Receipt.Line(lineNo: line["line_no"], received: line["received"], discrepancy: (line["discrepancy"] as String?).flatMap(GRNLine.Discrepancy.init),
                         note: line["note"], tracking: tracking[line["line_no"]])
        }
        let counts = try Row.fetchAll(db, sql: "SELECT * FROM receiving_receipt_counts WHERE po_number = ? ORDER BY id DESC LIMIT ?",
                                      arguments: [poNumber, countsShown]).map { count in
            Receipt.Count(id: count["id"], lineNo: count["line_no"], quantity: count["quantity"], code: count["code"], source: count["source"],
                          countedAt: count["counted_at"], lot: count["lot"], expiry: count["expiry"], serial: count["serial"])
        }
        let photos = try Row.fetchAll(db, sql: "SELECT * FROM receiving_receipt_photos WHERE po_number = ? ORDER BY taken_at, sha256", arguments: [poNumber]).map { photo in
            StoredPhoto(sha256: photo["sha256"], bytes: photo["bytes"], width: photo["width"], height: photo["height"])
        }
        return Receipt(poNumber: poNumber, startedAt: row["started_at"], updatedAt: row["updated_at"], revision: row["revision"], lines: lines, counts: counts,
                       photos: photos)
    }

    /// Per line, the quantities counted with each lot, expiry and serial (RCV-10), over every
    /// count of the receipt (not only those a document shows), in the order first scanned.
    static func tracking(_ db: Database, _ poNumber: String) throws -> [Int: [GRNLine.Tracking]] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT line_no, lot, expiry, serial, SUM(quantity) AS quantity FROM receiving_receipt_counts
            WHERE po_number = ? AND (lot IS NOT NULL OR expiry IS NOT NULL OR serial IS NOT NULL)
            GROUP BY line_no, lot, expiry, serial ORDER BY MIN(id)
            """, arguments: [poNumber])
        var byLine: [Int: [GRNLine.Tracking]] = [:]
        for row in rows {
            byLine[row["line_no"], default: []].append(GRNLine.Tracking(lot: row["lot"], expiry: row["expiry"], serial: row["serial"], quantity: row["quantity"]))
        }
        return byLine
    }

    /// The order line a scanned code counts on: the item code as the order has it (a material
    /// code, a vendor article number; letters compared without case), or the same GTIN written
    /// as EAN-8, UPC-A, EAN-13 or GTIN-14. When several lines carry the item, the first that still
    /// has something outstanding after what this receipt counted, else the first.
    static func line(for code: String, in order: PurchaseOrder, receipt: Receipt?) -> PurchaseOrderLine? {
        let wanted = key(code)
        let matching = order.lines.filter { key($0.item) == wanted }
        return matching.first { line in (receipt?.line(line.lineNo)?.received ?? 0) < line.ordered - line.received } ?? matching.first
    }

    private static func key(_ item: String) -> String {
        let item = trimmed(item)
        let isGTIN = [8, 12, 13, 14].contains(item.utf8.count) && item.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        return isGTIN ? String(repeating: "0", count: 14 - item.utf8.count) + item : item.uppercased()
    }

    private static func trimmed(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[first...last])
        return String(view)
    }
}
