import EdgeContract

extension StandinBackend {
    /// `POST /api/enrollment/link` (ENR-5). Unknown, expired and used codes get one answer.
    func enrollmentLink(_ request: StandinRequest) throws -> StandinReply {
        let link = try decodeBody(EnrollmentLinkRequest.self, request)
        let code = String(link.linkingCode.filter { $0 != "-" && $0 != " " }.uppercased())
        return state.withLock { state in
            guard let id = state.linkingCodes[code], var enrollment = state.enrollments[id], !enrollment.expired,
                enrollment.linkedDevice == nil || enrollment.linkedDevice == link.deviceUUID
            else {
                return .error(400, .invalidLinkingCode, "Invalid linking code")
            }
            enrollment.linkedDevice = link.deviceUUID
            state.enrollments[id] = enrollment
            let tokens = issueTokens(for: id, in: &state)
            return .json(200, EnrollmentLinkResponse(
                accessToken: tokens.access, refreshToken: tokens.refresh, sponsorURL: enrollment.sponsorURL,
                patientID: enrollment.patientID, enrollmentID: id, sponsor: enrollment.sponsor,
                studyStartRequired: enrollment.studyStartRequired))
        }
    }

    /// `GET /api/enrollment/status[?enrollment_id=]`: the token's enrollment unless one is named;
    /// a configured static token must name it.
    func enrollmentStatus(_ request: StandinRequest) throws -> StandinReply {
        let token = try authenticated(request)
        return state.withLock { state in
            let named = request.query["enrollment_id"]
            if let own = token.enrollmentID, let named, named != own {
                return .error(404, .notFound, "No enrollment \(named) for this token")
            }
            guard let id = named ?? token.enrollmentID, let enrollment = state.enrollments[id] else {
                return .error(404, .notFound, "No enrollment for this token; name one with enrollment_id")
            }
            return .json(200, EnrollmentStatusResponse(
                enrollmentID: id, patientID: enrollment.patientID, status: enrollment.status, updatedAt: enrollment.updatedAt))
        }
    }

    /// `POST /api/enrollment/refresh` with the refresh token as bearer (ENR-10). Every earlier
    /// token of the enrollment is forgotten (rotation): a revoked access token is recovered from,
    /// a revoked refresh token is not.
    func enrollmentRefresh(_ request: StandinRequest) throws -> StandinReply {
        let token = try authenticated(request)
        let refresh = try decodeBody(EnrollmentRefreshRequest.self, request)
        return state.withLock { state in
            guard token.kind == .refresh else {
                return .error(401, .unauthorized, "Refresh takes the enrollment's refresh token as bearer")
            }
            guard token.enrollmentID == refresh.enrollmentID, state.enrollments[refresh.enrollmentID] != nil else {
                return .error(404, .notFound, "No enrollment \(refresh.enrollmentID) for this refresh token")
            }
            state.tokens = state.tokens.filter { $0.value.enrollmentID != refresh.enrollmentID }
            let tokens = issueTokens(for: refresh.enrollmentID, in: &state)
            return .json(200, EnrollmentRefreshResponse(accessToken: tokens.access, refreshToken: tokens.refresh))
        }
    }

    /// Decision: no `expires_at`: tokens are perpetual (ENR-9) and validity is decided by answers.
    private func issueTokens(for enrollmentID: String, in state: inout StandinState) -> (access: String, refresh: String) {
        let access = Self.newToken(prefix: "at.")
        let refresh = Self.newToken(prefix: "rt.")
        state.tokens[access] = TokenRecord(token: access, kind: .access, enrollmentID: enrollmentID)
        state.tokens[refresh] = TokenRecord(token: refresh, kind: .refresh, enrollmentID: enrollmentID)
        return (access, refresh)
    }
}
