import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeEnrollment
import EdgeImaging
import EdgePayloads
import EdgeReceiving
import EdgeCrypto
import FoundationEssentials
import Hummingbird
import NIOCore

/// The JSON API under `/api/v1` (UI-1, models/kiosk-api.openapi.json). The pages call it through
/// /static/kiosk.js; scripts on the station can too, with the same checks (KioskGuard).
///
/// Decision (UI-7, "the API can do nothing the screen cannot"): every route here is one a control
/// on a page calls, and each calls the capability the screen's action does; there is no route for
/// anything else (no raw outbox, vault or configuration access).
struct KioskAPI: Sendable {
    let kiosk: Kiosk

    /// Request bodies are small JSON objects; a GRN of 999 lines with notes fits in 1 MiB.
    static let maxBody = 1 << 20

    func register(on router: Router<BasicRequestContext>) {
        let api = router.group("/api/v1")
        api.get("session") { _, _ in session() }
        api.post("session") { request, _ in try await logIn(request) }
        api.get("status") { _, _ in status() }
        api.get("events") { request, _ in try KioskEvents(kiosk: kiosk).response(request) }
        api.post("dock/scans") { request, _ in try await dockScan(request) }
        api.get("dock/lookup") { _, _ in try currentLookup() }
        api.get("dock/receipts/:po") { _, context in try receipt(context.parameters.require("po")) }
        api.put("dock/receipts/:po/lines/:line") { request, context in
            try await editLine(request, po: context.parameters.require("po"), lineNo: context.parameters.require("line", as: Int.self))
        }
        api.post("dock/receipts/:po/undo") { _, context in try undo(context.parameters.require("po")) }
        api.delete("dock/receipts/:po") { _, context in try discard(context.parameters.require("po")) }
        api.delete("dock/receipts/:po/photos/:sha") { _, context in
            try removePhoto(context.parameters.require("po"), sha: context.parameters.require("sha"))
        }
        api.post("dock/photos") { request, _ in try await takePhoto(request) }
        api.get("dock/photos/:id") { _, context in try photo(context.parameters.require("id")) }
        api.post("dock/grns") { request, _ in try await confirm(request) }
        api.get("dock/grns/:key") { _, context in try outcome(context.parameters.require("key")) }
        api.post("clinic/code-check") { request, _ in try await codeCheck(request) }
        api.get("clinic/enrollments") { _, _ in try enrollmentList() }
        api.post("clinic/enrollments") { request, _ in try await enroll(request) }
        api.post("clinic/enrollments/:id/check") { _, context in try await check(context.parameters.require("id", as: Int64.self)) }
        api.post("clinic/enrollments/:id/cancel") { _, context in try cancel(context.parameters.require("id", as: Int64.self)) }
    }

    // MARK: session and status

    func session() -> Response {
        let configuration = kiosk.context.configuration
        return KioskResponse.json(KioskDocuments.Session(csrfToken: kiosk.checks.csrfToken, role: configuration.station.role.rawValue,
                                                         station: KioskPages.shown(configuration.station.name), startedAt: kiosk.startedAt))
    }

    func logIn(_ request: Request) async throws -> Response {
        struct Body: Decodable { let pin: String }
        guard kiosk.settings.requiresPIN else {
            throw KioskError(.notFound, "This kiosk listens on loopback only and needs no PIN.", status: .notFound)
        }
        let body = try await Self.decode(Body.self, request, limit: 256)
        let cookie = try kiosk.checks.logIn(pin: body.pin)
        var response = session()
        response.headers[.setCookie] = cookie
        return response
    }

    /// The same document as `edge status --json` (UI-4).
    func status() -> Response {
        let status = kiosk.context.status()
        let bytes = (try? status.json()) ?? Array("{}".utf8)
        return KioskResponse.bytes(bytes, contentType: "application/json")
    }

    // MARK: dock (UI-2)

    private func requireDock() throws -> ReceivingDock {
        guard let dock = kiosk.dock else {
            throw KioskError(.notThisStation, "This station is not a receiving dock (station.role in edge.json).", status: .notFound)
        }
        return dock
    }

    /// A label typed or sent by a keyboard-wedge scanner: what a camera read does (`DockScanner`):
    /// counted on the open order, refused, or looked up and made the dock's current lookup.
    /// `open`: the operator confirmed opening another order while this one has a receipt.
    func dockScan(_ request: Request) async throws -> Response {
        struct Body: Decodable {
            let text: String
            let open: Bool?
        }
        let dock = try requireDock()
        let body = try await Self.decode(Body.self, request)
        let text = KioskPages.trimmed(body.text)
        guard !text.isEmpty, text.utf8.count <= 4096, let feed = kiosk.feed else {
            throw KioskError(.badRequest, "Scan or type a label (at most 4096 bytes).", status: .unprocessableContent)
        }
        let className = KioskLookup.typedClass(text, classifier: dock.classifier)
        let scanner = DockScanner(dock: dock, feed: feed)
        let open = body.open ?? false
        // A lookup the backend holds ends when the station stops (`KioskBackendCalls`).
        switch await kiosk.backend.run({
            await scanner.read(text, className: className, source: KioskLookup.keyboard, seenAt: dock.now, open: open)
        }) {
        case .lookup(let lookup):
            return KioskResponse.json(KioskDocuments.Lookup(lookup, now: dock.now))
        case .counted(let counted):
            let notice = DockNotice(kind: counted.needsExcessFlag ? .excess : .counted, poNumber: counted.receipt.poNumber, label: text,
                                    lineNo: counted.lineNo, source: KioskLookup.keyboard, at: dock.now, message: "")
            return KioskResponse.json(KioskDocuments.Notice(notice, receipt: counted.receipt))
        case .notice(let notice):
            return KioskResponse.json(KioskDocuments.Notice(notice))
        }
    }

    // MARK: receipts in progress (RCV-8)

    /// A receiving call's answer, its refusal in the API's error shape.
    private func receiving<T>(_ body: () throws(ReceivingError) -> T) throws(KioskError) -> T {
        do throws(ReceivingError) {
            return try body()
        } catch {
            throw KioskError(error)
        }
    }

    private static func noReceipt(_ po: String) -> KioskError {
        KioskError(.notFound, "No receipt is in progress for \(KioskPages.shown(String(po.prefix(40)))).", status: .notFound)
    }

    func receipt(_ po: String) throws -> Response {
        let dock = try requireDock()
        guard let receipt = try receiving({ () throws(ReceivingError) in try dock.receipts.receipt(po) }) else { throw Self.noReceipt(po) }
        return KioskResponse.json(receipt)
    }

    /// One field of one line, committed before the answer (the page sends each change as it is
    /// made). The order is the dock's open one, or its cached copy.
    func editLine(_ request: Request, po: String, lineNo: Int) async throws -> Response {
        struct Body: Decodable {
            let received: String?
            let discrepancy: String?
            let note: String?
            let revision: Int?
        }
        let dock = try requireDock()
        let body = try await Self.decode(Body.self, request)
        let receipt = try receiving { () throws(ReceivingError) -> Receipt in
            let order = try self.order(po, dock: dock)
            var flag: GRNLine.Discrepancy?
            if let text = body.discrepancy, !text.isEmpty {
                guard let parsed = GRNLine.Discrepancy(rawValue: text) else {
                    throw ReceivingError(.invalidQuantity, "Line \(lineNo): the discrepancy is short, excess or damaged.")
                }
                flag = parsed
            }
            return try dock.receipts.edit(order, lineNo: lineNo, received: body.received, discrepancy: flag, note: body.note,
                                          revision: body.revision, now: dock.now)
        }
        kiosk.context.facts.publish(receipt)
        return KioskResponse.json(receipt)
    }

    func undo(_ po: String) throws -> Response {
        let dock = try requireDock()
        guard let receipt = try receiving({ () throws(ReceivingError) in try dock.receipts.undo(po, now: dock.now) }) else {
            throw KioskError(.notFound, "Nothing to undo: no item was counted for this order.", status: .notFound)
        }
        kiosk.context.facts.publish(receipt)
        return KioskResponse.json(receipt)
    }

    /// "Discard" (the page asks first): the receipt in progress is gone; the order stays open.
    func discard(_ po: String) throws -> Response {
        let dock = try requireDock()
        guard try receiving({ () throws(ReceivingError) in try dock.discardReceipt(po) }) else { throw Self.noReceipt(po) }
        kiosk.context.facts.publish(ReceiptClosed(poNumber: po, reason: .discarded))
        return Response(status: .noContent)
    }

    /// "Remove photo": the receipt no longer names it (its file stays until nothing does).
    func removePhoto(_ po: String, sha: String) throws -> Response {
        let dock = try requireDock()
        let receipt = try receiving { () throws(ReceivingError) -> Receipt? in
            guard let current = try dock.receipts.receipt(po), current.photos.contains(where: { $0.sha256 == sha }) else { return nil }
            return try dock.receipts.removePhoto(po, sha256: sha, now: dock.now)
        }
        guard let receipt else { throw KioskError(.notFound, "This receipt has no such photo.", status: .notFound) }
        kiosk.context.facts.publish(receipt)
        return KioskResponse.json(receipt)
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// The order a receipt is for: the one the dock has open, else the cached copy.
    private func order(_ po: String, dock: ReceivingDock) throws(ReceivingError) -> PurchaseOrder {
        if let feed = kiosk.feed, let open = DockScanner(dock: dock, feed: feed).openOrder, open.poNumber == po { return open }
        guard let cached = try dock.cache.cached(po) else {
            throw ReceivingError(.notFound, "\(KioskPages.shown(String(po.prefix(40)))) is not open on this dock; scan its label first.")
        }
        return cached.order
    }

    func currentLookup() throws -> Response {
        let dock = try requireDock()
        guard let lookup = kiosk.feed?.latest else {
            throw KioskError(.notFound, "Nothing scanned yet.", status: .notFound)
        }
        return KioskResponse.json(KioskDocuments.Lookup(lookup, now: dock.now))
    }

    /// A still from the dock camera the agent streams (preview; taking another is the retake).
    /// With `po_number` it belongs to that order's receipt (RCV-8): written to the photo
    /// directory at once, named by its SHA-256, and kept across reloads and restarts;
    /// `replaces` is the receipt's photo it retakes. Without, it is held in memory until the
    /// confirmation.
    func takePhoto(_ request: Request) async throws -> Response {
        struct Body: Decodable {
            let camera: String?
            let poNumber: String?
            let replaces: String?
            enum CodingKeys: String, CodingKey {
                case camera, replaces
                case poNumber = "po_number"
            }
        }
        let dock = try requireDock()
        let body = try await Self.decode(Body.self, request)
        guard let camera = body.camera ?? kiosk.firstCamera else {
            throw KioskError(.camera, "This station has no camera configured for photos.", status: .unprocessableContent)
        }
        let image: GrayImage
        do {
            image = try await kiosk.context.still(camera: camera)
        } catch let error as CameraSupervisor.StillError {
            throw KioskError(.camera, error.message, status: .serviceUnavailable)
        }
        let jpeg: [UInt8]
        do {
            jpeg = try JPEGEncoder.encode(image)
        } catch {
            throw KioskError(.camera, "The photo could not be encoded as JPEG: \(error.reason)", status: .internalServerError)
        }
        if let po = body.poNumber {
            let (receipt, taken) = try receiving { () throws(ReceivingError) -> (Receipt, StoredPhoto) in
                let order = try self.order(po, dock: dock)
                let taken = try dock.photos.write(image)
                return (try dock.receipts.addPhoto(order.poNumber, taken, replacing: body.replaces, now: dock.now), taken)
            }
            kiosk.context.facts.publish(receipt)
            return KioskResponse.json(KioskDocuments.Photo(id: taken.sha256, camera: camera, width: image.width, height: image.height, bytes: taken.bytes))
        }
        let id = KioskGuard.hex(try Random.bytes(16))
        kiosk.photos.add(.init(id: id, camera: camera, image: image, jpeg: jpeg, takenAt: kiosk.context.now()))
        return KioskResponse.json(KioskDocuments.Photo(id: id, camera: camera, width: image.width, height: image.height, bytes: jpeg.count))
    }

    /// A receipt's photo by its SHA-256 (64 hex), else one held in memory.
    func photo(_ id: String) throws -> Response {
        if Self.isSHA256(id), let dock = kiosk.dock, let bytes = try? dock.photos.read(id) {
            return KioskResponse.bytes(bytes, contentType: "image/jpeg")
        }
        guard let photo = kiosk.photos.photo(id) else {
            throw KioskError(.notFound, "No such photo (photos not confirmed are kept until the agent restarts).", status: .notFound)
        }
        return KioskResponse.bytes(photo.jpeg, contentType: "image/jpeg")
    }

    /// RCV-2 through the dock: validated, queued with its photos in one transaction, sent by the
    /// agent's outbox; waits a few seconds for the answer so the screen can say "applied".
    func confirm(_ request: Request) async throws -> Response {
        struct Line: Decodable {
            let lineNo: Int
            let received: String
            let discrepancy: String?
            let note: String?
            enum CodingKeys: String, CodingKey {
                case received, discrepancy, note
                case lineNo = "line_no"
            }
        }
        struct Body: Decodable {
            let poNumber: String
            let lines: [Line]
            let photos: [String]?
            /// The receipt's revision the screen showed (RCV-8): confirmed once, never unseen.
            let receiptRevision: Int?
            enum CodingKeys: String, CodingKey {
                case lines, photos
                case poNumber = "po_number", receiptRevision = "receipt_revision"
            }
        }
        let dock = try requireDock()
        let body = try await Self.decode(Body.self, request)
        guard !body.lines.isEmpty, body.lines.count <= GRNDraft.maxLines else {
            throw KioskError(.badRequest, "Enter the received quantity of at least one line.", status: .unprocessableContent)
        }
        let ids = body.photos ?? []
        guard ids.count <= ReceivingDock.maxPhotos else {
            throw KioskError(.badRequest, "A GRN takes at most \(ReceivingDock.maxPhotos) photos.", status: .unprocessableContent)
        }
        var images: [GrayImage] = []
        var stored: [StoredPhoto] = []
        let receiptPhotos = ((try? dock.receipts.receipt(body.poNumber)) ?? nil)?.photos ?? []
        for id in ids {
            if let photo = receiptPhotos.first(where: { $0.sha256 == id }) {
                stored.append(photo)
                continue
            }
            guard let photo = kiosk.photos.photo(id) else {
                throw KioskError(.notFound, "A photo of this GRN is no longer held (the agent restarted?); take it again.", status: .unprocessableContent)
            }
            images.append(photo.image)
        }
        do throws(ReceivingError) {
            // The CLI's line grammar (N=QTY:FLAG:NOTE) with its checks and messages, so the screen
            // and `edge receive` refuse the same things with the same words.
            let lines = try body.lines.map { line throws(ReceivingError) in
                try GRNDraft.parseLine("\(line.lineNo)=\(line.received):\(line.discrepancy ?? ""):\(line.note ?? "")")
            }
            let confirmation = try await dock.confirm(GRNDraft(poNumber: body.poNumber, lines: lines), photos: images, stored: stored,
                                                      receiptRevision: body.receiptRevision)
            kiosk.feed?.orderConfirmed(confirmation.request.poNumber)
            kiosk.context.facts.publish(ReceiptClosed(poNumber: confirmation.request.poNumber, reason: .confirmed))
            kiosk.photos.remove(ids)
            let wait = min(dock.settings?.confirmWait ?? ReceivingSettings.defaultConfirmWait, 10)
            let outcome = try await GRNDelivery.awaitOutcome(confirmation.idempotencyKey, dock: dock, wait: wait)
            let photos = confirmation.photos.map { (try? dock.photos.photo($0.sha256)) ?? $0 }
            let waiting = (try? kiosk.context.outbox.status().depth) ?? 0
            return KioskResponse.json(KioskDocuments.Confirmation(document: ConfirmationDocument(confirmation, outcome: outcome, photos: photos), waiting: waiting))
        } catch {
            throw KioskError(error)
        }
    }

    func outcome(_ key: String) throws -> Response {
        let dock = try requireDock()
        do throws(ReceivingError) {
            let outcome = try dock.outcome(key)
            let document: KioskDocuments.Outcome
            switch outcome {
            case .applied: document = .init(idempotencyKey: key, outcome: outcome.name, reason: nil, conflict: nil)
            case .queued(let reason), .rejected(let reason): document = .init(idempotencyKey: key, outcome: outcome.name, reason: reason, conflict: nil)
            case .conflict(let report): document = .init(idempotencyKey: key, outcome: outcome.name, reason: nil, conflict: report)
            }
            return KioskResponse.json(document)
        } catch {
            throw KioskError(error)
        }
    }

    // MARK: clinic (UI-3)

    private func requireEnrollments() throws -> Enrollments {
        guard let enrollments = kiosk.enrollments else {
            throw KioskError(.notThisStation, "This station is not a clinic station, or its enrollment part is not running (see Status).", status: .notFound)
        }
        return enrollments
    }

    /// ENR-2 / ENR-3 as the coordinator types: nothing is stored, logged or sent anywhere. The
    /// field may hold any carrier a wedge scanner types (a link, a JSON card): it is read as
    /// enrolling reads it (`LinkingCode(carriedBy:)`), and a complete one is shown as its code.
    func codeCheck(_ request: Request) async throws -> Response {
        struct Body: Decodable { let code: String }
        let enrollments = try requireEnrollments()
        let typed = try await Self.decode(Body.self, request, limit: 1024).code
        let check: KioskDocuments.CodeCheck
        do {
            let code = try LinkingCode(carriedBy: typed, source: .typed, sponsors: enrollments.sponsors)
            check = .init(display: code.formatted, characters: LinkingCodeAlphabet.codeLength, complete: true, message: nil, sponsorID: code.sponsor.sponsorID)
        } catch where error.context["carrier"] != nil {
            // A link or card still being typed, or one holding a bad code: its text stays as it is
            // (an empty display is never written into the field), the message says what is wrong.
            let valid = Int(error.context["valid_characters"] ?? "") ?? 0
            check = .init(display: "", characters: valid, complete: false, message: error.message, sponsorID: nil)
        } catch {
            let normalized = LinkingCodeNormalizer.normalize(typed, source: .typed)
            let valid = normalized.filter { LinkingCodeAlphabet.characters.contains($0) }.count
            var display = ""
            for (index, character) in normalized.enumerated() {
                if index == LinkingCodeAlphabet.prefixLength || index == 5 { display.append("-") }
                display.append(character)
            }
            check = .init(display: KioskPages.shown(display), characters: valid, complete: false, message: normalized.isEmpty ? nil : error.message, sponsorID: nil)
        }
        return KioskResponse.json(check)
    }

    func enrollmentList() throws -> Response {
        let enrollments = try requireEnrollments()
        do throws(EnrollmentError) {
            return KioskResponse.json(EnrollmentDocument.List(enrollments: try enrollments.store.all().map(EnrollmentDocument.init)))
        } catch {
            throw KioskError(error)
        }
    }

    func enroll(_ request: Request) async throws -> Response {
        /// `code` with `source` `typed` (default) or `scanned` (a keyboard-wedge scanner): the
        /// bare code normalised as ENR-2 says, or any carrier (a link, a JSON card) a wedge
        /// scanner typed; or `camera: true` for the code a camera read last (held by the kiosk,
        /// never sent to the page).
        struct Body: Decodable { let code: String?; let source: String?; let camera: Bool?; let reenroll: Int64? }
        let enrollments = try requireEnrollments()
        let body = try await Self.decode(Body.self, request, limit: 1024)
        guard let source = LinkingCodeInputSource(rawValue: body.source ?? "typed") else {
            throw KioskError(.badRequest, "source is typed or scanned.", status: .unprocessableContent)
        }
        do throws(EnrollmentError) {
            let enrollment: Enrollment
            let reenroll = body.reenroll
            if body.camera == true {
                guard let code = kiosk.takeHeldCode() else {
                    throw EnrollmentError(.noCodeSeen, "No linking code was read by the camera in the last 2 minutes; hold the code steady in front of the camera.")
                }
                enrollment = try await kiosk.backend.run { await Self.result { () async throws(EnrollmentError) in try await enrollments.enroll(code, reenrolling: reenroll) } }.get()
            } else if let code = body.code {
                enrollment = try await kiosk.backend.run {
                    await Self.result { () async throws(EnrollmentError) in try await enrollments.enroll(input: code, source: source, reenrolling: reenroll) }
                }.get()
            } else {
                throw EnrollmentError(.localValidation, "Type or scan the linking code first.")
            }
            return KioskResponse.json(EnrollmentDocument(enrollment))
        } catch {
            throw KioskError(error)
        }
    }

    func check(_ id: Int64) async throws -> Response {
        let enrollments = try requireEnrollments()
        do throws(EnrollmentError) {
            let checked = try await kiosk.backend.run { await Self.result { () async throws(EnrollmentError) in try await enrollments.check(id) } }.get()
            return KioskResponse.json(EnrollmentDocument(checked))
        } catch {
            throw KioskError(error)
        }
    }

    func cancel(_ id: Int64) throws -> Response {
        let enrollments = try requireEnrollments()
        do throws(EnrollmentError) {
            return KioskResponse.json(EnrollmentDocument(try enrollments.cancel(id)))
        } catch {
            throw KioskError(error)
        }
    }

    /// A portal call as a value, to pass through `KioskBackendCalls`.
    static func result<T>(_ body: () async throws(EnrollmentError) -> T) async -> Result<T, EnrollmentError> {
        do {
            return .success(try await body())
        } catch {
            return .failure(error)
        }
    }

    // MARK: bodies

    /// The body as `T`, refusing more than `limit` bytes before it is read whole.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, limit: Int = maxBody) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw KioskError(.badRequest, "The request body is larger than \(limit) bytes.", status: .contentTooLarge)
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch {
            throw KioskError(.badRequest, "The request body is not the JSON this call takes (see models/kiosk-api.openapi.json).", status: .badRequest)
        }
    }
}
