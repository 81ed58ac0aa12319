import EdgeContract

/// The control API (`/_standin/`, only with `controlAPI`) and the same operations for tests in
/// process. Control calls need no token and are never hit by faults: they are how a test sets
/// the stage, so they must always work.
extension StandinBackend {
    func control(_ request: StandinRequest) throws -> StandinReply {
        switch (request.method, request.path) {
        case ("GET", StandinControlPath.faults):
            return .json(200, faults.plan)
        case ("POST", StandinControlPath.faults):
            // A bare fault (it has `kind`) or a plan.
            let json = try requestJSON(request)
            if json["kind"] != nil {
                faults.add(try decodeBody(StandinFault.self, request))
            } else {
                faults.apply(try decodeBody(FaultPlan.self, request))
            }
            return .json(200, faults.plan)
        case ("DELETE", StandinControlPath.faults):
            faults.clear()
            return .json(200, faults.plan)
        case ("GET", StandinControlPath.requests):
            return .json(200, journal.requests)
        case ("DELETE", StandinControlPath.requests):
            journal.clear()
            return .json(200, [RecordedRequest]())
        case ("GET", StandinControlPath.applied):
            return .json(200, applied)
        case ("POST", StandinControlPath.revoke):
            let body = try decodeBody(RevokeRequest.self, request)
            guard let selector = body.selector else {
                return .error(400, .invalidRequest, "Name exactly one of token, token_prefix (not empty), enrollment_id")
            }
            let count = revoke(selector, code: body.code ?? .tokenRevoked)
            return .json(200, JSONValue.object(["revoked": .integer(Int64(count))]))
        case ("POST", StandinControlPath.changes):
            let body = try decodeBody(ChangeRequest.self, request)
            return .json(200, state.withLock { state in
                appendChange(stream: body.stream, kind: body.kind, payload: body.payload, changedAt: body.changedAt, id: body.id, in: &state)
            })
        case ("POST", StandinControlPath.orders):
            let order = try decodeBody(PurchaseOrder.self, request)
            guard order.lines.count <= 999 else { return .error(400, .invalidRequest, "An order has at most 999 lines") }
            putPurchaseOrder(order)
            return .json(200, order)
        case ("GET", StandinControlPath.fcmFaults):
            return .json(200, fcm.faults)
        case ("POST", StandinControlPath.fcmFaults):
            let json = try requestJSON(request)
            if json["kind"] != nil {
                fcm.add(try decodeBody(FCMFault.self, request))
            } else {
                for fault in try decodeBody(FCMFaultList.self, request).faults { fcm.add(fault) }
            }
            return .json(200, fcm.faults)
        case ("DELETE", StandinControlPath.fcmFaults):
            fcm.clearFaults()
            return .json(200, fcm.faults)
        case ("GET", StandinControlPath.fcmMessages):
            return .json(200, fcm.received)
        case ("DELETE", StandinControlPath.fcmMessages):
            fcm.clearReceived()
            return .json(200, [FCMReceivedMessage]())
        case ("POST", StandinControlPath.approve):
            let body = try decodeBody(ApproveRequest.self, request)
            guard let status = approveStudyStart(enrollmentID: body.enrollmentID) else {
                return .error(404, .notFound, "No enrollment \(body.enrollmentID)")
            }
            return .json(200, status)
        default:
            return .error(404, .notFound, "No such control call: \(request.method) \(request.path)")
        }
    }

    /// Revokes the selected tokens; returns how many. `.unauthorized` forgets them (401 from then
    /// on); the other codes keep them, answered 403 with that code (ENR-10).
    @discardableResult
    public func revoke(_ selector: TokenSelector, code: RevocationCode = .tokenRevoked) -> Int {
        state.withLock { state in
            let hit = state.tokens.values.filter { record in
                switch selector {
                case .token(let token): record.token == token
                case .prefix(let prefix): record.token.hasPrefix(prefix)
                case .enrollment(let id): record.enrollmentID == id
                }
            }
            for record in hit {
                if code == .unauthorized {
                    state.tokens[record.token] = nil
                } else {
                    state.tokens[record.token]?.revokedCode = code
                }
            }
            return hit.count
        }
    }

    /// Appends a change to the pull log, as if the server had one for the station.
    @discardableResult
    public func appendChange(stream: String, kind: String, payload: JSONValue) -> SyncChange {
        state.withLock { appendChange(stream: stream, kind: kind, payload: payload, in: &$0) }
    }

    /// The investigator approves Study Start: the enrollment becomes ENROLLED and an
    /// ENROLLMENT_STATUS change is pulled (ENR-13). Nil for an unknown enrollment.
    @discardableResult
    public func approveStudyStart(enrollmentID: String) -> EnrollmentStatusResponse? {
        state.withLock { state in
            guard var enrollment = state.enrollments[enrollmentID] else { return nil }
            enrollment.status = .enrolled
            enrollment.updatedAt = ServerClock.now()
            state.enrollments[enrollmentID] = enrollment
            let status = EnrollmentStatusResponse(
                enrollmentID: enrollmentID, patientID: enrollment.patientID, status: .enrolled, updatedAt: enrollment.updatedAt)
            appendChange(stream: "enrollment:\(enrollmentID)", kind: "ENROLLMENT_STATUS", payload: Self.json(status), changedAt: enrollment.updatedAt, in: &state)
            return status
        }
    }

    /// Accepts `token` as a bearer token for every call (like `staticTokens`).
    public func addStaticToken(_ token: String) {
        state.withLock { $0.tokens[token] = TokenRecord(token: token, kind: .fixed) }
    }
}
