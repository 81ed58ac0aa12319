import EdgeHTTP
import EdgeStore
import EdgeSync
import EdgeVault
import FoundationEssentials

/// Revocation (ENR-10): 401, or 403 TOKEN_REVOKED / PATIENT_DISCONNECTED, on any authenticated
/// call, whether the sender's (through the agent's `CredentialRejectionRouter`) or the status
/// check's. One refresh when a refresh token exists; when that fails the tokens are crypto-erased,
/// the enrollment becomes NOT_PARTICIPATING, the event is logged with time and detection method,
/// and its entries are held until a re-enrollment. Transient errors never revoke.
extension Enrollments: CredentialRejectionHandler {
    public func credentialRejected(_ credential: String?, status: Int, code: String?) async -> CredentialVerdict {
        guard let credential, let id = Enrollment.id(ofCredential: credential) else {
            return .revoked(reason: "HTTP \(status)" + (code.map { " " + $0 } ?? ""))
        }
        return await handleRejection(id, method: "HTTP \(status)" + (code.map { " " + $0 } ?? "") + " on sync")
    }

    /// Refresh once, else revoke. `method` says how the revocation was detected, for the log and
    /// the history.
    func handleRejection(_ id: Int64, method: String) async -> CredentialVerdict {
        guard beginRefresh(id) else {
            // Another entry of the same enrollment is being decided: this one waits its turn.
            return .undecided(reason: "a refresh of this enrollment's token is under way")
        }
        defer { endRefresh(id) }
        guard let enrollment = try? store.enrollment(id) else { return .revoked(reason: method + "; unknown enrollment") }
        if enrollment.state == .notParticipating { return .revoked(reason: "enrollment \(id) is not participating", kind: Self.revokedHold) }
        if let serverID = enrollment.serverEnrollmentID, let refresh = try? token(enrollment.refreshSecret) {
            do {
                let renewed = try await portal.refresh(backendURL: enrollment.backendURL, enrollmentID: serverID, refreshToken: refresh)
                try storeTokens(of: enrollment, access: renewed.accessToken, refresh: renewed.refreshToken)
                logger.notice("enrollment token refreshed after a rejection",
                              metadata: ["event": "enrollment.refreshed", "enrollment": "\(id)", "method": "\(method)"])
                return .refreshed
            } catch where error.code == .noNetwork || error.code == .timedOut || error.code == .serverError || error.code == .vault {
                return .undecided(reason: "refresh failed (\(error.code.rawValue)); trying again later")
            } catch {
                // The refresh token was refused too: fall through to revocation.
            }
        }
        do {
            try revoke(enrollment, method: method)
        } catch {
            logger.error("revocation could not be recorded", metadata: ["event": "enrollment.revoke_failed", "enrollment": "\(id)", "type": "\(error.code.rawValue)"])
            return .undecided(reason: "revocation could not be recorded (\(error.code.rawValue))")
        }
        return .revoked(reason: "enrollment \(id) revoked: \(method)", kind: Self.revokedHold)
    }

    /// Crypto-erase first (VLT-6: no earlier copy of the vault can open the tokens again), then
    /// NOT_PARTICIPATING with its event and the hold, in one commit.
    func revoke(_ enrollment: Enrollment, method: String) throws(EnrollmentError) {
        do {
            let names = try [SecretName(enrollment.accessSecret), SecretName(enrollment.refreshSecret)]
            try vault.withVault { vault throws(VaultError) in
                let present = Set(try vault.list().map(\.name))
                _ = try vault.erase(names.filter { present.contains($0.value) })
            }
        } catch {
            throw EnrollmentError(.vault, "The enrollment's tokens could not be erased: \(error.message)")
        }
        let at = clock()
        let deviceID = try self.deviceID()
        try commit { db in
            guard let current = try EnrollmentStore.fetch(db, enrollment.id) else { return ((), []) }
            var next = current
            // ENROLLED and STUDY_START_PENDING become NOT_PARTICIPATING (see
            // `EnrollmentState.successors`): out of the poller's list, and re-enrollable. A state
            // without tokens of its own to lose (LINKING_PENDING) stays; its entries are held.
            if current.state.canMove(to: .notParticipating, reenrolling: false) {
                try next.lifecycle.move(to: .notParticipating, at: at, cause: "revoked: \(method)")
                next.updatedAt = at
            }
            let change = try EnrollmentStore.save(db, next, after: current)
            try enqueueEvents(db, change, deviceID: deviceID)
            try syncState.hold(db, credential: enrollment.accessSecret, reason: "revoked: \(method)", kind: Self.revokedHold, now: at)
            return ((), [change])
        }
        logger.warning("enrollment revoked; its tokens were erased and its data is held",
                       metadata: ["event": "enrollment.revoked", "enrollment": "\(enrollment.id)", "method": "\(method)",
                                  "at": "\(LocalTimestamp.string(epochSeconds: at))"])
    }
}
