import EdgeAgent
import EdgeCore
import EdgeContract
import EdgeEnrollment
import EdgeReceiving
import EdgeStore
import FoundationEssentials
import Mustache

/// The kiosk's pages (UI-2..4), rendered on the server from the templates embedded in the binary
/// (Assets/*.mustache; `{{...}}` escapes HTML). Each page is whole and usable as served; kiosk.js
/// adds the live updates and sends the forms to the API. Text from payloads and servers is passed
/// through DisplayText first, so bidi and invisible characters show as escapes, not as tricks.
struct KioskPages: Sendable {
    private let library: MustacheLibrary

    init() throws {
        var library = MustacheLibrary()
        for (name, bytes) in [("layout", PackageResources.layout_mustache), ("dock", PackageResources.dock_mustache),
                              ("dock-lookup", PackageResources.dock_lookup_mustache), ("camera-item", PackageResources.camera_item_mustache),
                              ("scan-row", PackageResources.scan_row_mustache), ("enrollment-card", PackageResources.enrollment_card_mustache),
                              ("history-step", PackageResources.history_step_mustache), ("status-camera", PackageResources.status_camera_mustache),
                              ("status-part", PackageResources.status_part_mustache), ("status-wait", PackageResources.status_wait_mustache),
                              ("clinic", PackageResources.clinic_mustache), ("status", PackageResources.status_mustache),
                              ("login", PackageResources.login_mustache)] {
            library.register(try MustacheTemplate(string: String(decoding: bytes, as: UTF8.self)), named: name)
        }
        self.library = library
    }

    static let script = PackageResources.kiosk_js
    static let style = PackageResources.kiosk_css

    func render(_ page: String, title: String, kiosk: Kiosk, context: Any) -> String {
        let body = library.render(context, withTemplate: page) ?? ""
        var nav: [[String: Any]] = []
        if kiosk.servesDock { nav.append(["href": "/dock", "label": "Dock", "current": page == "dock"]) }
        if kiosk.servesClinic { nav.append(["href": "/clinic", "label": "Clinic", "current": page == "clinic"]) }
        nav.append(["href": "/status", "label": "Status", "current": page == "status"])
        let layout: [String: Any] = ["title": title, "station": KioskPages.shown(kiosk.context.configuration.station.name), "csrf": kiosk.checks.csrfToken,
                                     "startedAt": String(kiosk.startedAt), "page": page, "nav": page == "login" ? [] : nav, "body": body]
        return library.render(layout, withTemplate: "layout") ?? ""
    }

    // MARK: dock

    func dock(_ kiosk: Kiosk) -> String {
        let events = (try? kiosk.context.events.recent(limit: Self.recentScans)) ?? []
        var context: [String: Any] = ["status": KioskLive.Status(kiosk.context.status()), "scans": events.map(KioskDocuments.Scan.init),
                                      "lastScan": events.first?.id ?? 0, "recentScans": Self.recentScans]
        if let lookup = kiosk.feed?.latest, let dock = kiosk.dock {
            context["lookup"] = Self.lookup(lookup, now: dock.now, photoCamera: kiosk.firstCamera ?? "", receipts: dock.receipts, vendorNames: dock.vendorNames)
        }
        return render("dock", title: "Receiving dock", kiosk: kiosk, context: context)
    }

    /// How many scans "Last scans" lists (the page trims live rows to the same).
    static let recentScans = 10

    /// The dock's lookup region alone (`GET /dock/regions/lookup`): what the page puts in place of
    /// #lookup when the camera read a new label, instead of re-reading the whole page.
    func dockLookupRegion(_ kiosk: Kiosk) -> String {
        var context: [String: Any] = [:]
        if let lookup = kiosk.feed?.latest, let dock = kiosk.dock {
            context["lookup"] = Self.lookup(lookup, now: dock.now, photoCamera: kiosk.firstCamera ?? "", receipts: dock.receipts, vendorNames: dock.vendorNames)
        }
        return library.render(context, withTemplate: "dock-lookup") ?? ""
    }

    /// `receipts`: the order's receipt in progress fills its lines (RCV-8: a reload shows it).
    static func lookup(_ lookup: KioskLookup, now: Double, photoCamera: String, receipts: ReceiptStore, vendorNames: VendorNames) -> [String: Any] {
        // seenAtRaw: what GET /api/v1/dock/lookup says as seen_at, so the script knows what is on screen.
        var out: [String: Any] = ["camera": KioskPages.shown(lookup.camera), "seenAt": time(lookup.seenAt), "seenAtRaw": KioskPages.number(lookup.seenAt)]
        switch lookup.content {
        case .order(let order):
            let document = OrderDocument(order, now: now)
            let sourceText: String
            switch order {
            case .online: sourceText = "Online: fetched from the backend just now."
            case .cached(let cached, let reason):
                sourceText = "Cached copy from \(time(cached.fetchedAt)) (\(age(document.ageSeconds ?? 0)) old); the backend cannot be reached: \(sentence(reason))"
            case .notAvailableOffline(_, let reason):
                sourceText = "Not available offline: this station has never looked this order up, and the backend cannot be reached: \(sentence(reason))"
            }
            let receipt = (try? receipts.receipt(document.poNumber)) ?? nil
            let lastCount = receipt?.counts.first
            out["order"] = [
                "poNumber": KioskPages.shown(document.poNumber), "source": document.source, "sourceText": sourceText, "available": document.available,
                "status": document.status ?? "", "vendorID": KioskPages.shown(document.vendorID ?? ""), "camera": photoCamera,
                "vendor": KioskPages.shown(document.vendorID.flatMap(vendorNames.name) ?? "vendor " + (document.vendorID ?? "unknown")),
                "revision": receipt?.revision ?? 0, "hasReceipt": receipt != nil, "hasCounts": lastCount != nil,
                "lastCountID": lastCount.map { String($0.id) } ?? "",
                "photoID": receipt?.photos.last?.sha256 ?? "", "hasPhoto": receipt?.photos.isEmpty == false,
                "lastCount": lastCount.map { count in
                    let trace = Self.tracking([GRNLine.Tracking(lot: count.lot, expiry: count.expiry, serial: count.serial, quantity: count.quantity)])
                    return "Last count: line \(count.lineNo), +\(GRNValidator.text(count.quantity)) (\(KioskPages.shown(String(count.code.prefix(40))))\(trace.isEmpty ? "" : "; " + trace))"
                } ?? "",
                "lines": (document.lines ?? []).map { line -> [String: Any] in
                    let entered = receipt?.line(line.lineNo)
                    let pack = line.packSize.map { "pack of \(GRNValidator.text($0))" } ?? ""
                    let tracking = Self.tracking(entered?.tracking ?? [])
                    return ["lineNo": line.lineNo, "item": KioskPages.shown(line.item), "description": KioskPages.shown(line.description),
                            "ordered": GRNValidator.text(line.ordered), "alreadyReceived": GRNValidator.text(line.received),
                            "outstanding": GRNValidator.text(line.outstanding), "unit": KioskPages.shown(line.unit),
                            "pack": pack, "hasPack": !pack.isEmpty, "tracking": tracking,
                            "received": entered?.received.map(GRNValidator.text) ?? "", "note": KioskPages.shown(entered?.note ?? ""),
                            "flagShort": entered?.discrepancy == .short, "flagExcess": entered?.discrepancy == .excess,
                            "flagDamaged": entered?.discrepancy == .damaged]
                },
            ] as [String: Any]
        case .vendor(let vendor):
            let document = LookupDocument(vendor: vendor)
            out["card"] = card("vendor", heading: "Vendor \(vendor.name)", document: document,
                               fields: [("Vendor", vendor.vendorID), ("Rating", GRNValidator.text(vendor.rating) + " of 5")])
        case .material(let material):
            let document = LookupDocument(material: material)
            out["card"] = card("material", heading: "Material \(material.code)", document: document,
                               fields: [("Description", material.description), ("In stock", GRNValidator.text(material.stockLevel) + " " + material.unit),
                                        ("Price", material.priceTrend.direction.rawValue)])
        case .product(let product):
            let document = LookupDocument(product: product)
            var fields = [("GTIN", product.gtin), ("Kind", product.kind)]
            if let info = product.product { fields.append(("Name", info.name)) }
            out["card"] = card("product", heading: product.product.map { "Product \($0.name)" } ?? "Product \(product.gtin)", document: document, fields: fields)
        case .refused(let code, let message):
            out["error"] = ["code": code.rawValue, "message": DisplayText.oneLine(message)]
        }
        return out
    }

    private static func card(_ kind: String, heading: String, document: LookupDocument, fields: [(String, String)]) -> [String: Any] {
        // The rest of what `edge lookup` prints (contact, recent orders, prices, GTIN check): one
        // wording for the terminal and the screen.
        ["kind": kind, "heading": KioskPages.shown(heading), "message": KioskPages.shown(document.message),
         "fields": fields.map { ["name": $0.0, "value": KioskPages.shown($0.1)] },
         "details": document.text.dropFirst().map { KioskPages.shown(KioskPages.trimmed($0)) }]
    }

    // MARK: clinic

    func clinic(_ kiosk: Kiosk) -> String {
        let list = (try? kiosk.enrollments?.store.all()) ?? []
        let enrollments = list.sorted { $0.updatedAt > $1.updatedAt }.map { KioskLive.Enrollment(EnrollmentDocument($0)) }
        var context: [String: Any] = ["enrollments": enrollments, "rateLimitedMessage": EnrollmentError.rateLimitedMessage]
        // ENR-7's countdown also on a page opened (or reloaded) in the middle of a cooldown.
        if let seconds = try? kiosk.enrollments?.validationCooldown() { context["cooldown"] = ["seconds": seconds] }
        return render("clinic", title: "Clinic enrollment", kiosk: kiosk, context: context)
    }

    static func stateText(_ state: String) -> String {
        switch state {
        case "PERSONAL_USE": "Personal use"
        case "LINKING_PENDING": "Linking…"
        case "STUDY_START_PENDING": "Study Start pending"
        case "ENROLLED": "Enrolled"
        case "NOT_PARTICIPATING": "Not participating (revoked)"
        default: state
        }
    }

    static func explanation(_ state: String) -> String? {
        switch state {
        case "STUDY_START_PENDING": "Waiting for the investigator's Study Start approval; the station asks every minute. Data is kept and sent once approved."
        case "NOT_PARTICIPATING": "Access was revoked. Data is kept; re-enroll with the same patient's new code to send it."
        case "LINKING_PENDING": "Validation did not finish. Cancel returns the station to personal use."
        case "ENROLLED": "Enrolled: data is sent to the study."
        default: nil
        }
    }

    /// Sponsor colours reach the page only as #RRGGBB (a server's string never becomes CSS).
    static func color(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#"), bytes.dropFirst().allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || ($0 >= 97 && $0 <= 102) })
        else { return "" }
        return text
    }

    // MARK: status

    func status(_ kiosk: Kiosk) -> String {
        render("status", title: "Station status", kiosk: kiosk, context: KioskLive.Status(kiosk.context.status()))
    }

    func login(_ kiosk: Kiosk) -> String {
        render("login", title: "Operator PIN", kiosk: kiosk, context: [:])
    }

    // MARK: text

    /// Payload and server text for a page: invisible and control characters shown as escapes
    /// (DisplayText); quotes stay, the template escapes HTML.
    static func shown(_ text: String) -> String { DisplayText.escaped(text, quoting: false) }

    /// Local time as the station's operators read it.
    /// Local time as the operators read it: `14:03:27` today, `2026-11-25 14:03` before.
    /// A line's GS1 data in words (RCV-10), as kiosk.js's `trackingText` writes it live:
    /// `lot L-7, expires 2027-03-31 ×7; serial S-1`. Entries without any data are left out.
    static func tracking(_ entries: [GRNLine.Tracking]) -> String {
        entries.compactMap { entry -> String? in
            let parts = [entry.lot.map { "lot " + shown($0) }, entry.serial.map { "serial " + shown($0) }, entry.expiry.map { "expires " + shown($0) }].compactMap { $0 }
            guard !parts.isEmpty else { return nil }
            return parts.joined(separator: ", ") + (entry.serial != nil && entry.quantity == 1 ? "" : " ×" + GRNValidator.text(entry.quantity))
        }.joined(separator: "; ")
    }

    static func time(_ epochSeconds: Double) -> String {
        let stamp = Array(LocalTimestamp.string(epochSeconds: epochSeconds))
        let today = Array(LocalTimestamp.string(epochSeconds: Date().timeIntervalSince1970))
        guard stamp.count >= 19, today.count >= 10 else { return String(stamp) }
        return stamp[0..<10] == today[0..<10] ? String(stamp[11..<19]) : String(stamp[0..<10]) + " " + String(stamp[11..<16])
    }

    static func age(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 90 { return "\(s) s" }
        if s < 5400 { return "\(s / 60) min" }
        if s < 172_800 { return "\(s / 3600) h" }
        return "\(s / 86400) days"
    }

    /// Server text as the end of a sentence: one line, one final period.
    static func sentence(_ text: String) -> String {
        var line = trimmed(DisplayText.oneLine(shown(text)))
        while line.hasSuffix(".") { line.removeLast() }
        return line + "."
    }

    /// A Double as JSONEncoder writes it (the script compares the two as strings).
    static func number(_ value: Double) -> String {
        let encoder = JSONEncoder()
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? String(value)
    }

    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
