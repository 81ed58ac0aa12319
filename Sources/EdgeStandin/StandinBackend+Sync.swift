import EdgeContract

extension StandinBackend {
    /// `POST /api/sync/push`: applied once per Idempotency-Key (SYN-7, SYN-12).
    func syncPush(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        let key = try requireIdempotencyKey(request)
        let json = try requestJSON(request)
        let entry = try decodeBody(SyncPushRequest.self, request)
        return state.withLock { state in
            if let replay = replay(key, request, json, in: &state) { return replay }
            state.serverSequence += 1
            state.pushes.append(entry)
            let response = SyncPushResponse(status: .applied, idempotencyKey: key, serverSequence: state.serverSequence, appliedAt: ServerClock.now())
            var duplicate = response
            duplicate.status = .duplicate
            let reply = StandinReply.json(200, response)
            remember(
                key, request, json, reply: reply, replayBody: StandinReply.json(200, duplicate).body, applied: true,
                stream: entry.stream, sequence: entry.sequence, in: &state)
            return reply
        }
    }

    /// `GET /api/sync/pull?cursor=&limit=` (SYN-9).
    func syncPull(_ request: StandinRequest) throws -> StandinReply {
        _ = try authenticated(request)
        var offset = 0
        if let cursor = request.query["cursor"], !cursor.isEmpty {
            guard let decoded = PullCursor.decode(cursor) else {
                return .error(400, .invalidRequest, "Unknown cursor")
            }
            offset = decoded
        }
        var limit = 100
        if let text = request.query["limit"] {
            guard let value = Int(text), (1...500).contains(value) else {
                return .error(400, .invalidRequest, "limit must be 1 to 500")
            }
            limit = value
        }
        return state.withLock { state in
            let start = min(offset, state.changes.count)
            let end = min(start + limit, state.changes.count)
            return .json(200, SyncPullResponse(
                changes: Array(state.changes[start..<end]), nextCursor: PullCursor.encode(offset: end), hasMore: end < state.changes.count))
        }
    }
}
