import EdgeAgent
import EdgeCore
import EdgeContract
import EdgePayloads
import EdgeReceiving
import EdgeStore
import FoundationEssentials

/// The JSON the kiosk API returns that no CLI command already prints (the rest are the CLI's own
/// documents: StationStatus, EnrollmentDocument, OrderDocument, LookupDocument,
/// ConfirmationDocument). Snake_case keys, as every document of the project (models/kiosk-api.openapi.json).
enum KioskDocuments {
    /// A scan event as the live view shows it: masked text only (a linking code never leaves).
    struct Scan: Encodable, Sendable {
        let id: Int64
        let camera: String
        let capturedAt: Double
        let symbology: String
        let className: String
        let valid: Bool
        let text: String
        /// The row's time as "Last scans" shows it.
        let time: String

        enum CodingKeys: String, CodingKey {
            case id, camera, symbology, valid, text, time
            case capturedAt = "captured_at"
            case className = "class"
        }

        init(_ event: ScanEvent) {
            id = event.id ?? 0
            camera = event.camera
            capturedAt = event.capturedAt
            symbology = event.symbology
            className = event.className
            valid = event.valid
            text = KioskPages.shown(Self.summary(className: event.className, text: event.masked))
            time = KioskPages.time(event.capturedAt)
        }

        /// What "Last scans" shows of a read: a vendor card by its vendor id, not its JSON; any
        /// other read as stored (a linking code masked), on one line and at most 80 characters.
        static func summary(className: String, text: String) -> String {
            if className == BuiltInPayloadClass.vendor.rawValue {
                struct Card: Decodable { let vendorID: String; enum CodingKeys: String, CodingKey { case vendorID = "vendor_id" } }
                if let card = try? JSONDecoder().decode(Card.self, from: Data(text.utf8)) { return "vendor " + String(card.vendorID.prefix(36)) }
            }
            let line = DisplayText.oneLine(text)
            return line.count > 80 ? String(line.prefix(79)) + "…" : line
        }
    }

    /// The dock's current lookup: what was read, and the order or card or refusal it gave.
    struct Lookup: Encodable {
        struct Refusal: Encodable {
            let code: String
            let message: String
        }

        let kind: String
        let camera: String
        let seenAt: Double
        let order: OrderDocument?
        let card: LookupDocument?
        let error: Refusal?

        enum CodingKeys: String, CodingKey {
            case kind, camera, order, card, error
            case seenAt = "seen_at"
        }

        init(_ lookup: KioskLookup, now: Double) {
            kind = lookup.content.kind
            camera = lookup.camera
            seenAt = lookup.seenAt
            switch lookup.content {
            case .order(let order): self.order = OrderDocument(order, now: now); card = nil; error = nil
            case .vendor(let vendor): order = nil; card = LookupDocument(vendor: vendor); error = nil
            case .material(let material): order = nil; card = LookupDocument(material: material); error = nil
            case .product(let product): order = nil; card = LookupDocument(product: product); error = nil
            case .refused(let code, let message): order = nil; card = nil; error = Refusal(code: code.rawValue, message: message)
            }
        }
    }

    /// Live feedback while a coordinator types a linking code (ENR-2, ENR-3).
    struct CodeCheck: Encodable {
        /// The normalised text, grouped as printed (`AB-CDE-FGHJK`) as far as it goes.
        let display: String
        /// Valid alphabet characters so far.
        let characters: Int
        /// Ten characters with a known prefix: ready to validate with the portal.
        let complete: Bool
        /// ENR-3's message word for word ("8/10 characters", the look-alike or unknown-prefix text).
        let message: String?
        /// The sponsor the prefix names, once it is known.
        let sponsorID: String?

        enum CodingKeys: String, CodingKey {
            case display, characters, complete, message
            case sponsorID = "sponsor_id"
        }
    }

    struct Session: Encodable {
        let csrfToken: String
        let role: String
        let station: String
        let startedAt: Double

        enum CodingKeys: String, CodingKey {
            case role, station
            case csrfToken = "csrf_token"
            case startedAt = "started_at"
        }
    }

    struct Photo: Encodable {
        let id: String
        let camera: String
        let width: Int
        let height: Int
        let bytes: Int
    }

    /// A confirmation as the CLI prints it, with how many outbox entries wait to be sent.
    struct Confirmation: Encodable {
        let document: ConfirmationDocument
        let waiting: Int

        func encode(to encoder: any Encoder) throws {
            try document.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(waiting, forKey: .waiting)
        }

        enum Key: String, CodingKey { case waiting }
    }

    /// A dock read that did not open a lookup (`DockNotice`): the answer to a typed scan and the
    /// `notice` event. `receipt`: the order's receipt after a count (answers only).
    struct Notice: Encodable, Sendable {
        let kind: String
        let poNumber: String
        let label: String
        let lineNo: Int?
        let message: String
        let receipt: Receipt?

        init(_ notice: DockNotice, receipt: Receipt? = nil) {
            kind = notice.kind.rawValue
            poNumber = notice.poNumber
            label = DisplayText.oneLine(String(notice.label.prefix(80)))
            lineNo = notice.lineNo
            message = DisplayText.oneLine(notice.message)
            self.receipt = receipt
        }

        enum CodingKeys: String, CodingKey {
            case kind, label, message, receipt
            case poNumber = "po_number", lineNo = "line_no"
        }
    }

    /// The `receipt` event: the receipt as it is now, or that it ended (`closed`).
    struct ReceiptEvent: Encodable, Sendable {
        let poNumber: String
        let receipt: Receipt?
        let closed: String?

        enum CodingKeys: String, CodingKey {
            case receipt, closed
            case poNumber = "po_number"
        }
    }

    struct Outcome: Encodable {
        let idempotencyKey: String
        let outcome: String
        let reason: String?
        let conflict: ConflictReport?

        enum CodingKeys: String, CodingKey {
            case outcome, reason, conflict
            case idempotencyKey = "idempotency_key"
        }
    }

}
