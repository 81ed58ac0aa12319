import EdgeContract
import EdgeImaging
import EdgePayloads
import EdgeStore
import FoundationEssentials
import GRDB
import Glibc

/// The receiving dock's rules (RCV-1..6) over the store and the backend: PO lookup with its
/// offline cache, GRN validation and confirmation through the outbox, photo evidence, vendor,
/// material and product cards. The CLI and the agent's capability both drive this; neither holds
/// a rule of its own.
public struct ReceivingDock: Sendable {
    public let outbox: Outbox
    public let cache: OrderCache
    public let ledger: GRNLedger
    public let photos: PhotoStore
    /// Receipts in progress (RCV-8).
    public let receipts: ReceiptStore
    public let vendorNames: VendorNames
    /// nil: no `receiving` section (vendor cards are refused, naming the key to set).
    public let settings: ReceivingSettings?
    /// nil: no sync section or no token, so every lookup is offline.
    public let client: ReceivingClient?
    /// Why `client` is nil, for the operator.
    public let offlineReason: String
    private let clock: @Sendable () -> Double
    /// The scanner's own classifier: the same words for a bad PO or GTIN as `edge scan` uses.
    public let classifier = PayloadClassifier(sponsors: .empty)

    public init(outbox: Outbox, photoDirectory: String, settings: ReceivingSettings?, client: ReceivingClient?,
                offlineReason: String = "no backend is configured (sync.base_url)",
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.outbox = outbox
        cache = OrderCache(database: outbox.database)
        ledger = GRNLedger(database: outbox.database)
        receipts = ReceiptStore(database: outbox.database)
        vendorNames = VendorNames(database: outbox.database)
        photos = PhotoStore(directory: settings?.photoDirectory ?? photoDirectory, database: outbox.database)
        self.settings = settings
        self.client = client
        self.offlineReason = offlineReason
        self.clock = clock
    }

    public var now: Double { clock() }

    // MARK: RCV-1

    /// Looks the order up online and caches it; when the backend cannot be reached, answers from
    /// the cache with its age, or "not available offline" for an order never fetched here.
    public func lookupOrder(_ text: String) async throws(ReceivingError) -> OrderLookup {
        let poNumber = try purchaseOrderNumber(text)
        guard let client else { return try offline(poNumber, reason: offlineReason) }
        do throws(ReceivingError) {
            switch try await client.barcode(poNumber) {
            case .purchaseOrder(let order) where order.poNumber == poNumber:
                let fetched = now
                try cache.store(order, now: fetched)
                return .online(order, fetchedAt: fetched)
            default:
                throw ReceivingError(.invalidAnswer, "The backend answered \(poNumber) with something other than that purchase order.",
                                     context: ["po_number": poNumber])
            }
        } catch where error.code == .notAvailableOffline {
            return try offline(poNumber, reason: error.message)
        }
    }

    private func offline(_ poNumber: String, reason: String) throws(ReceivingError) -> OrderLookup {
        guard let cached = try cache.cached(poNumber) else {
            return .notAvailableOffline(poNumber: poNumber, reason: reason)
        }
        return .cached(cached, reason: reason)
    }

    /// The PO number in `text`, or why it is not one (the scanner's classifier's words).
    /// "Discard" (RCV-8): the receipt goes, and the files of its photos that nothing else names.
    @discardableResult
    public func discardReceipt(_ poNumber: String) throws(ReceivingError) -> Bool {
        let photos = try receipts.receipt(poNumber)?.photos.map(\.sha256) ?? []
        guard try receipts.discard(poNumber) else { return false }
        for sha in try receipts.unreferenced(photos) { unlink(self.photos.path(sha)) }
        return true
    }

    public func purchaseOrderNumber(_ text: String) throws(ReceivingError) -> String {
        let result = classifier.classify(text: text, symbology: .code128)
        guard result.className == BuiltInPayloadClass.purchaseOrder.rawValue else {
            throw ReceivingError(.invalidInput, "\(ReceivingClient.printable(String(text.prefix(40)))) is not a purchase order number (PO-YYYY-NNNNN).")
        }
        guard result.valid else {
            throw ReceivingError(.invalidInput, "Not a valid purchase order number: \(result.reason ?? "malformed").")
        }
        return Self.trimmed(text)
    }

    // MARK: RCV-2

    /// Validates `draft` against the order (fresh, or cached when offline) and queues it in the
    /// outbox with its photos (encoded as JPEG, stored by hash) and its ledger record, all in one transaction, so it is sent
    /// exactly once. Throws `.invalidQuantity` with every problem, `.notAvailableOffline` for an
    /// order never fetched while the backend cannot be reached.
    ///
    /// The order's receipt in progress (RCV-8) ends in the same transaction as the GRN is queued:
    /// with `receiptRevision` (the screen's), only if the receipt is still at that revision, so a
    /// receipt is confirmed once and never with changes another screen made unseen.
    /// `stored`: photos already on disk (the receipt's).
    public func confirm(_ draft: GRNDraft, photos images: [GrayImage] = [], stored: [StoredPhoto] = [], receiptRevision: Int? = nil)
        async throws(ReceivingError) -> GRNConfirmation {
        let lookup = try await lookupOrder(draft.poNumber)
        guard let order = lookup.order else {
            throw ReceivingError(.notAvailableOffline, "\(lookup.poNumber) has never been looked up on this station, so it cannot be confirmed offline (\(Self.reason(lookup))).",
                                 context: ["po_number": lookup.poNumber])
        }
        let validation = GRNValidator.validate(draft, against: order)
        guard validation.isValid else {
            throw ReceivingError(.invalidQuantity, validation.errors.map(\.message).joined(separator: " "),
                                 context: ["po_number": order.poNumber, "errors": String(validation.errors.count)])
        }
        guard images.count + stored.count <= Self.maxPhotos else {
            throw ReceivingError(.photoFailed, "A GRN takes at most \(Self.maxPhotos) photos (\(images.count + stored.count) given).")
        }
        // Checked here too (and again in the transaction, as committed), so a draft refused for
        // its GS1 data leaves no photo file behind either.
        _ = try Self.traced(draft.lines, tracking: try receipts.tracking(order.poNumber))
        // Written only once the draft is valid, so a refused draft leaves no file behind.
        var written: [StoredPhoto] = stored
        for image in images { written.append(try photos.write(image)) }
        let taken = written
        let at = now
        let offline = { if case .cached = lookup { true } else { false } }()
        let confirmed: (key: String, request: GRNConfirmRequest)
        do {
            confirmed = try outbox.database.write { [photos, outbox, ledger] db in
                // The GS1 data comes from the receipt's counts as committed (RCV-10), read in the
                // transaction that ends the receipt, never from the screen's copy.
                let lines = try Self.traced(draft.lines, tracking: try ReceiptStore.tracking(db, order.poNumber))
                try ReceiptStore.close(db, order.poNumber, revision: receiptRevision)
                let request = GRNConfirmRequest(poNumber: order.poNumber, confirmedAt: LocalTimestamp.string(epochSeconds: at), lines: lines,
                                                photos: taken.map { GRNPhoto(sha256: $0.sha256) })
                let payload: [UInt8]
                do {
                    payload = try ContractCoding.encode(request)
                } catch {
                    throw ReceivingError(.invalidQuantity, "The GRN for \(order.poNumber) could not be encoded.")
                }
                for photo in taken { try photos.record(db, photo, now: at) }
                let entry = try outbox.enqueue(db, stream: GRNLedger.stream(order.poNumber), kind: GRNLedger.kind, payload: payload, now: at)
                try ledger.insert(db, key: entry.idempotencyKey, request: request, orderBefore: order, offline: offline, photos: taken, now: at)
                return (entry.idempotencyKey, request)
            }
        } catch let error as ReceivingError {
            throw error
        } catch let error as StoreError {
            throw ReceivingError(.storeFailed, "The GRN could not be queued: \(error.message)", context: ["po_number": order.poNumber])
        } catch {
            throw ReceivingError(.storeFailed, "The GRN could not be queued.", context: ["po_number": order.poNumber, "error": String(describing: error)])
        }
        let (key, request) = confirmed
        return GRNConfirmation(idempotencyKey: key, request: request, lookup: lookup, suggestions: validation.suggestions, photos: taken)
    }

    /// The draft's lines, sorted, with the receipt's GS1 data (RCV-10). A line whose scanned,
    /// traced items are more than its quantity is refused (the operator typed over the counts):
    /// the backend would be told of lots that did not arrive.
    static func traced(_ lines: [GRNLine], tracking: [Int: [GRNLine.Tracking]]) throws(ReceivingError) -> [GRNLine] {
        var result = lines.sorted { $0.lineNo < $1.lineNo }
        for index in result.indices {
            let traced = tracking[result[index].lineNo]
            result[index].tracking = traced
            let total = traced?.reduce(0) { $0 + $1.quantity } ?? 0
            if total > result[index].received + 1e-9 {
                throw ReceivingError(.invalidQuantity, "Line \(result[index].lineNo): \(GRNValidator.text(total)) were scanned with a lot, expiry or serial but \(GRNValidator.text(result[index].received)) is entered; undo the extra counts or correct the quantity.",
                                     context: ["line_no": String(result[index].lineNo)])
            }
        }
        let entered = Set(result.map(\.lineNo))
        if let missing = tracking.keys.sorted().first(where: { !entered.contains($0) }) {
            throw ReceivingError(.invalidQuantity, "Line \(missing) has items scanned with a lot, expiry or serial but no quantity; enter it or undo those counts.",
                                 context: ["line_no": String(missing)])
        }
        return result
    }

    /// Decision: up to 10 photos per GRN, each at most 4 MiB: evidence, not an album.
    public static let maxPhotos = 10

    /// Where a confirmation stands now, read from the ledger, the conflict log and the outbox.
    public func outcome(_ key: String) throws(ReceivingError) -> GRNOutcome {
        try ledger.reconcile(now: now)
        guard let record = try ledger.record(key) else {
            throw ReceivingError(.storeFailed, "No confirmation with key \(key) is recorded on this station.")
        }
        switch record.status {
        case .applied:
            return .applied
        case .conflict:
            return .conflict(try ledger.conflict(key).flatMap { ConflictReport(record: record, conflict: $0) })
        case .rejected:
            return .rejected(reason: try ledger.deadLetterReason(key) ?? "refused by the backend")
        case .queued:
            return .queued(reason: try ledger.lastError(key).map { "last attempt: " + $0 } ?? "waiting to be sent")
        }
    }

    // MARK: RCV-4..6

    /// Checks the vendor card's tenant against the station's before anything is sent (RCV-4).
    public func vendor(cardText: String) async throws(ReceivingError) -> VendorInfo {
        let card = classifier.classify(text: cardText, symbology: .qr)
        guard card.className == BuiltInPayloadClass.vendor.rawValue else {
            throw ReceivingError(.invalidInput, "This is not a vendor card ({\"type\":\"VENDOR\",\"vendor_id\":...,\"tenant_id\":...}).")
        }
        guard card.valid, let vendorID = card.details["vendor_id"], let tenantID = card.details["tenant_id"] else {
            throw ReceivingError(.invalidInput, "The vendor card is not valid: \(card.reason ?? "malformed").")
        }
        guard let settings else {
            throw ReceivingError(.notConfigured, "The station has no tenant (receiving.tenant_id in edge.json), so vendor cards cannot be checked; nothing was sent.")
        }
        guard tenantID == settings.tenantID else {
            throw ReceivingError(.wrongTenant, "This vendor card belongs to another organisation (tenant \(tenantID)), not this station's (\(settings.tenantID)); it was not looked up.",
                                 context: ["tenant_id": tenantID, "vendor_id": vendorID])
        }
        let vendor = try await requireClient().vendor(cardText: cardText, vendorID: vendorID)
        vendorNames.store(vendor.vendorID, name: vendor.name, now: now)
        return vendor
    }

    /// The name of an order's vendor: learned before, else asked once of the backend with a
    /// vendor card in the station's tenant (nil offline, without a tenant, or when refused: the
    /// screen then shows the id).
    public func vendorName(_ vendorID: String) async -> String? {
        if let known = vendorNames.name(vendorID) { return known }
        guard let settings, let client else { return nil }
        struct Card: Encodable {
            let type = "VENDOR"
            let vendorID: String
            let tenantID: String
            enum CodingKeys: String, CodingKey {
                case type
                case vendorID = "vendor_id", tenantID = "tenant_id"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Card(vendorID: vendorID, tenantID: settings.tenantID)),
              let vendor = try? await client.vendor(cardText: String(decoding: data, as: UTF8.self), vendorID: vendorID) else { return nil }
        vendorNames.store(vendor.vendorID, name: vendor.name, now: now)
        return vendor.name
    }

    public func material(_ text: String) async throws(ReceivingError) -> MaterialInfo {
        let result = classifier.classify(text: text, symbology: .code128)
        guard result.className == BuiltInPayloadClass.material.rawValue, result.valid else {
            throw ReceivingError(.invalidInput, "\(ReceivingClient.printable(String(text.prefix(40)))) is not a material code (MAT-...)" + (result.reason.map { ": \($0)." } ?? "."))
        }
        let code = Self.trimmed(text)
        guard case .material(let material) = try await requireClient().barcode(code) else {
            throw ReceivingError(.invalidAnswer, "The backend answered \(code) with something other than a material.")
        }
        return material
    }

    /// A product label's classification: up to 13 digits are an EAN-13 (UPC-A typed without
    /// its leading 0 included), anything else GS1 data in any form (`product`).
    func productLabel(_ text: String) -> (result: Classification, ean: Bool) {
        let digits = Self.trimmed(text).utf8
        let ean = digits.count <= 13 && digits.allSatisfy { (48...57).contains($0) }
        return (ean ? classifier.classify(text: text, symbology: .ean13) : classifier.classifyGS1(text: text), ean)
    }

    /// What a scanned product label counts as on an order (RCV-9, SCN-13): a valid GS1 label
    /// counts as its GTIN, and as many items as its (30) VAR. COUNT or (37) COUNT says (nil: one
    /// scan, one item); any other label, and invalid GS1 data (refused then as not on the
    /// order, by what was read), as itself.
    public func countedItem(_ text: String, className: String) -> (code: String, quantity: Double?, trace: ReceiptStore.Trace) {
        guard className == BuiltInPayloadClass.product.rawValue else { return (text, nil, .none) }
        let (result, ean) = productLabel(text)
        guard !ean, result.valid, let gs1 = result.gs1, let gtin = gs1.gtin ?? gs1.contentGTIN else { return (text, nil, .none) }
        return (gtin, gs1.count.map(Double.init), ReceiptStore.Trace(lot: gs1.lot, expiry: gs1.expiry?.iso, serial: gs1.serial))
    }

    /// Verifies the check digit first (a misread never reaches the backend), then asks. `text`
    /// is an EAN-13 (up to 13 digits), or GS1 data naming a GTIN (SCN-13): a camera's GS1-128
    /// or GS1 QR read as its scan event keeps it (element data with GS separators; the GS1
    /// mark went into the event's class), or typed with `]C1` or as `(01)...`.
    public func product(_ text: String) async throws(ReceivingError) -> ProductLookup {
        let (result, ean) = productLabel(text)
        guard result.valid, result.className == BuiltInPayloadClass.product.rawValue, let gtin = result.details["gtin"] else {
            let reason = result.reason ?? (ean ? "not an EAN-13" : "it names no product (no GTIN, AI 01 or 02)")
            let shown = result.gs1?.humanReadable ?? ReceivingClient.printable(String(text.prefix(40)))
            // A wrong check digit of the GTIN itself (not of another AI's value) is the misread code.
            let gtinCheck = reason.contains("check digit") && (ean || ["01", "02"].contains(result.details["ai"] ?? ""))
            throw ReceivingError(gtinCheck ? .badCheckDigit : .invalidInput,
                                 "\(shown) is not \(ean ? "a valid EAN-13" : "a valid GS1 product label"): \(reason).")
        }
        let kind = result.details["kind"] ?? "gtin"
        do throws(ReceivingError) {
            guard case .product(let product) = try await requireClient().barcode(gtin) else {
                throw ReceivingError(.invalidAnswer, "The backend answered GTIN \(gtin) with something other than a product.")
            }
            return ProductLookup(gtin: gtin, kind: kind, product: product, gs1: result.gs1)
        } catch where error.code == .notFound {
            return ProductLookup(gtin: gtin, kind: kind, product: nil, gs1: result.gs1)
        }
    }

    private func requireClient() throws(ReceivingError) -> ReceivingClient {
        guard let client else { throw ReceivingError(.notAvailableOffline, "The backend cannot be asked: \(offlineReason).") }
        return client
    }

    /// Scanners and keyboards add spaces; the backend trims them too.
    static func trimmed(_ text: String) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }

    static func reason(_ lookup: OrderLookup) -> String {
        switch lookup {
        case .notAvailableOffline(_, let reason), .cached(_, let reason): reason
        case .online: "online"
        }
    }
}
