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
