import EdgeContract

extension StandinBackend {
    /// `POST /api/mobile/scan/barcode` (RCV-1, RCV-5, RCV-6).
    func scanBarcode(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        let lookup = try decodeBody(ScanLookupRequest.self, request)
        let value = String(lookup.value.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        return state.withLock { state in
            if Self.isPONumber(value) {
                guard let order = state.purchaseOrders[value] else { return .error(404, .notFound, "No purchase order \(value)") }
                return .json(200, ScanBarcodeResponse.purchaseOrder(order))
            }
            if value.hasPrefix("MAT-") {
                guard let material = state.materials[value] else { return .error(404, .notFound, "No material \(value)") }
                return .json(200, ScanBarcodeResponse.material(material))
            }
            if value.count == 13, value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
                guard Self.hasValidEAN13CheckDigit(value) else {
                    return .error(400, .invalidRequest, "\(value) has a wrong EAN-13 check digit")
                }
                guard let product = state.products[value] else { return .error(404, .notFound, "No product \(value)") }
                return .json(200, ScanBarcodeResponse.product(product))
            }
            return .error(404, .notFound, "Nothing is known about this barcode")
        }
    }

    /// `POST /api/mobile/scan/qr` (RCV-4): the vendor card's text; another tenant's card is 403.
    func scanQR(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        let lookup = try decodeBody(ScanLookupRequest.self, request)
        let card = try? ContractCoding.decode(JSONValue.self, from: Array(lookup.value.utf8))
        return state.withLock { state in
            guard let card, card["type"]?.stringValue == LookupType.vendor.rawValue,
                let vendorID = card["vendor_id"]?.stringValue, let tenantID = card["tenant_id"]?.stringValue
            else {
                return .error(400, .invalidRequest, "Not a vendor card: expected {\"type\":\"VENDOR\",\"vendor_id\":...,\"tenant_id\":...}")
            }
            // The tenant is checked first: another organisation's vendors are not ours to look up.
            guard tenantID.lowercased() == configuration.tenantID.lowercased() else {
                return .error(403, .wrongTenant, "This vendor card belongs to another organisation")
            }
            guard let vendor = state.vendors[vendorID.lowercased()], vendor.tenantID.lowercased() == tenantID.lowercased() else {
                return .error(404, .notFound, "No vendor \(vendorID)")
            }
            return .json(200, vendor)
        }
    }

    /// `POST /api/grn/confirm` (RCV-2, RCV-3): applied once per Idempotency-Key; 409 when the order
    /// was already received, 422 when quantities break the rules.
    func grnConfirm(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        let key = try requireIdempotencyKey(request)
        let json = try requestJSON(request)
        let grn = try decodeBody(GRNConfirmRequest.self, request)
        return state.withLock { state in
            if let replay = replay(key, request, json, in: &state) { return replay }
            let (reply, applied) = confirm(grn, in: &state)
            remember(key, request, json, reply: reply, applied: applied, stream: "po:\(grn.poNumber)", in: &state)
            return reply
        }
    }

    private func confirm(_ grn: GRNConfirmRequest, in state: inout StandinState) -> (StandinReply, applied: Bool) {
        guard var order = state.purchaseOrders[grn.poNumber] else {
            return (.error(404, .notFound, "No purchase order \(grn.poNumber)"), false)
        }
        if order.status == .received {
            let details = GRNConflictDetails(serverVersion: order, changes: Self.describeReceived(order))
            return (.error(409, .conflict, "\(order.poNumber) was already received", details: Self.json(details)), false)
        }
        var seen = Set<Int>()
        var serials = Set<String>()
        for line in grn.lines {
            guard let index = order.lines.firstIndex(where: { $0.lineNo == line.lineNo }) else {
                return (.error(422, .invalidRequest, "\(grn.poNumber) has no line \(line.lineNo)", details: .object(["line_no": .integer(Int64(line.lineNo))])), false)
            }
            guard seen.insert(line.lineNo).inserted else {
                return (.error(422, .invalidRequest, "Line \(line.lineNo) appears twice", details: .object(["line_no": .integer(Int64(line.lineNo))])), false)
            }
            guard line.received.isFinite, line.received >= 0 else {
                return (.error(422, .invalidRequest, "Line \(line.lineNo): the received quantity must not be negative", details: .object(["line_no": .integer(Int64(line.lineNo))])), false)
            }
            if let problem = Self.trackingProblem(line, serials: &serials) {
                return (.error(422, .invalidRequest, "Line \(line.lineNo): \(problem)", details: .object(["line_no": .integer(Int64(line.lineNo))])), false)
            }
            let outstanding = max(order.lines[index].ordered - order.lines[index].received, 0)
            if line.received > outstanding, line.discrepancy != .excess {
                return (.error(
                    422, .invalidRequest,
                    "Line \(line.lineNo): \(Self.quantity(line.received)) received but only \(Self.quantity(outstanding)) outstanding; flag the line as excess",
                    details: .object(["line_no": .integer(Int64(line.lineNo))])), false)
            }
        }
        for line in grn.lines {
            if let index = order.lines.firstIndex(where: { $0.lineNo == line.lineNo }) {
                order.lines[index].received += line.received
            }
        }
        if order.lines.allSatisfy({ $0.received >= $0.ordered }) {
            order.status = .received
        } else if order.lines.contains(where: { $0.received > 0 }) {
            order.status = .partiallyReceived
        }
        order.updatedAt = ServerClock.now()
        state.purchaseOrders[order.poNumber] = order
        state.grnCount += 1
        let grnID = "GRN-\(Self.padded(state.grnCount, 6))"
        state.grns[grnID] = grn
        appendChange(stream: "po:\(order.poNumber)", kind: "PO_UPDATED", payload: Self.json(order), changedAt: order.updatedAt, in: &state)
        return (.json(200, GRNConfirmResponse(grnID: grnID, poNumber: order.poNumber)), true)
    }

    /// What is wrong with a line's GS1 data (RCV-10), as a backend would refuse it: quantities
    /// above zero adding up to at most what was received, lot and serial 1-20 characters, an
    /// expiry that is a calendar date, one item per serial, no serial twice in one GRN.
    static func trackingProblem(_ line: GRNLine, serials: inout Set<String>) -> String? {
        guard let tracking = line.tracking else { return nil }
        guard tracking.count <= 1000 else { return "more than 1000 tracking entries" }
        var total = 0.0
        for entry in tracking {
            guard entry.quantity.isFinite, entry.quantity > 0 else { return "a tracking quantity must be more than 0" }
            total += entry.quantity
            for text in [entry.lot, entry.serial].compactMap({ $0 }) where text.isEmpty || text.count > GRNLine.Tracking.maxText {
                return "a lot or serial must be 1 to \(GRNLine.Tracking.maxText) characters"
            }
            if let expiry = entry.expiry, !Self.isCalendarDate(expiry) { return "expiry \(expiry) is not a date (YYYY-MM-DD)" }
            if let serial = entry.serial {
                guard entry.quantity == 1 else { return "serial \(serial) names one item, not \(Self.quantity(entry.quantity))" }
                guard serials.insert(serial).inserted else { return "serial \(serial) appears twice" }
            }
        }
        guard total <= line.received + 1e-9 else {
            return "\(Self.quantity(total)) items carry tracking data but \(Self.quantity(line.received)) were received"
        }
        return nil
    }

    static func isCalendarDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month) else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    /// The RCV-3 sentence: what the server has, line by line.
    static func describeReceived(_ order: PurchaseOrder) -> String {
        let lines = order.lines.map { "line \($0.lineNo) \(quantity($0.received)) of \(quantity($0.ordered)) \($0.unit) received" }
        return "\(order.poNumber) was already received in full (status \(order.status.rawValue), updated \(order.updatedAt)): \(lines.joined(separator: "; "))."
    }

    /// `POST /api/devices/register` (ENR-15): the first registration time is kept.
    func deviceRegister(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        let registration = try decodeBody(DeviceRegistrationRequest.self, request)
        guard registration.platform == SyncHeaderName.platformValue else {
            return .error(400, .invalidRequest, "platform must be \(SyncHeaderName.platformValue)")
        }
        return state.withLock { state in
            let record = state.devices[registration.deviceUUID]
                ?? DeviceRegistrationResponse(deviceUUID: registration.deviceUUID, registeredAt: ServerClock.now())
            state.devices[registration.deviceUUID] = record
            return .json(200, record)
        }
    }

    static func isPONumber(_ value: String) -> Bool {
        let characters = Array(value)
        guard characters.count == 13, value.hasPrefix("PO-"), characters[7] == "-" else { return false }
        let digits = characters[3..<7] + characters[8..<13]
        return digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    static func hasValidEAN13CheckDigit(_ value: String) -> Bool {
        let digits = value.compactMap(\.wholeNumberValue)
        guard digits.count == 13 else { return false }
        let sum = digits.prefix(12).enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return (10 - sum % 10) % 10 == digits[12]
    }
}
