import EdgeContract
import EdgeCore
import FoundationEssentials

/// The stand-in's backend logic (SYN-11): the contract's endpoints over in-memory state, the
/// control API, and the records tests assert on. Framework-free: `handle(_:)` takes and returns
/// plain values; StandinResponder adapts it to Hummingbird and FaultChannelHandler injects the
/// faults around it.
public final class StandinBackend: Sendable {
    public let configuration: StandinConfiguration
    public let faults: FaultInjector
    public let journal: RequestJournal
    let state: Locked<StandinState>
    /// The FCM stand-in's tokens, faults and received messages.
    public let fcm: FCMStandin
    /// Photo evidence received by hash (RCV-2).
    public let photoShelf = StandinPhotoShelf()

    public init(configuration: StandinConfiguration) {
        self.configuration = configuration
        faults = FaultInjector()
        journal = RequestJournal()
        var initial = StandinState()
        if configuration.seedDemoData {
            DemoData.seed(&initial, now: ServerClock.now())
        }
        for token in configuration.staticTokens {
            initial.tokens[token] = TokenRecord(token: token, kind: .fixed)
        }
        state = Locked(initial)
        fcm = FCMStandin()
    }

    /// Answers one request. Never throws: every failure is an answer in the contract's error shape.
    public func handle(_ request: StandinRequest) -> StandinReply {
        do {
            return try route(request)
        } catch let early as EarlyReply {
            return early.reply
        } catch {
            return .error(500, .serverError, "The stand-in failed: \(error)")
        }
    }

    private func route(_ request: StandinRequest) throws -> StandinReply {
        if request.path.hasPrefix(StandinControlPath.prefix) {
            guard configuration.controlAPI else {
                // Indistinguishable from an unknown path: the control API does not exist unless asked for.
                return .error(404, .notFound, "No such path: \(request.path)")
            }
            return try control(request)
        }
        if let reply = fcmRoute(request) { return reply }
        if let reply = try photoRoute(request) { return reply }
        let endpoints: [String: (method: String, handler: (StandinRequest) throws -> StandinReply)] = [
            APIPath.syncPush: ("POST", self.syncPush),
            APIPath.syncPull: ("GET", self.syncPull),
            APIPath.enrollmentLink: ("POST", self.enrollmentLink),
            APIPath.enrollmentStatus: ("GET", self.enrollmentStatus),
            APIPath.enrollmentRefresh: ("POST", self.enrollmentRefresh),
            APIPath.scanBarcode: ("POST", self.scanBarcode),
            APIPath.scanQR: ("POST", self.scanQR),
            APIPath.grnConfirm: ("POST", self.grnConfirm),
            APIPath.deviceRegister: ("POST", self.deviceRegister),
        ]
        guard let endpoint = endpoints[request.path] else {
            return .error(404, .notFound, "No such path: \(request.path)")
        }
        guard endpoint.method == request.method else {
            var reply = StandinReply.error(405, .invalidRequest, "\(request.path) takes \(endpoint.method), not \(request.method)")
            reply.headers.append(("Allow", endpoint.method))
            return reply
        }
        return try endpoint.handler(request)
    }

    // MARK: Helpers shared by the endpoints

    /// The caller's token record: 401 when missing or unknown, 403 with its code when revoked
    /// (ENR-10). Call inside the state lock.
    func authenticate(_ request: StandinRequest, in state: StandinState) throws -> TokenRecord {
        guard let token = request.bearerToken else {
            throw EarlyReply(.error(401, .unauthorized, "A bearer token is required"))
        }
        guard let record = state.tokens[token] else {
            throw EarlyReply(.error(401, .unauthorized, "Unknown bearer token"))
        }
        switch record.revokedCode {
        case .tokenRevoked?:
            throw EarlyReply(.error(403, .tokenRevoked, "This token was revoked"))
        case .patientDisconnected?:
            throw EarlyReply(.error(403, .patientDisconnected, "The patient was disconnected from the study"))
        case .unauthorized?:
            // Revocations with this code remove the token, so this is not reached; kept total.
            throw EarlyReply(.error(401, .unauthorized, "Unknown bearer token"))
        case nil:
            return record
        }
    }

    /// `authenticate` under the state lock. Endpoints authenticate before they parse, so a caller
    /// without a valid token learns nothing about what the endpoint accepts.
    func authenticated(_ request: StandinRequest) throws -> TokenRecord {
        try state.withLock { try authenticate(request, in: $0) }
    }

    func decodeBody<T: Decodable>(_ type: T.Type, _ request: StandinRequest) throws -> T {
        do {
            return try ContractCoding.decode(T.self, from: request.body)
        } catch {
            throw EarlyReply(.error(400, .invalidRequest, "The body is not a valid \(T.self): \(Self.describe(error))"))
        }
    }

    func requestJSON(_ request: StandinRequest) throws -> JSONValue {
        do {
            return try ContractCoding.decode(JSONValue.self, from: request.body)
        } catch {
            throw EarlyReply(.error(400, .invalidRequest, "The body is not JSON"))
        }
    }

    func requireIdempotencyKey(_ request: StandinRequest) throws -> String {
        guard let key = request.header(SyncHeaderName.idempotencyKey), !key.isEmpty else {
            throw EarlyReply(.error(400, .invalidRequest, "\(SyncHeaderName.idempotencyKey) is required on \(request.path)"))
        }
        return key
    }

    /// The replay of a key seen before, or 422 when the key now comes with another request.
    func replay(_ key: String, _ request: StandinRequest, _ json: JSONValue, in state: inout StandinState) -> StandinReply? {
        guard var record = state.idempotency[key] else { return nil }
        guard record.path == request.path, record.method == request.method, record.request == json else {
            return .error(422, .invalidRequest, "\(SyncHeaderName.idempotencyKey) \(key) was used for a different request")
        }
        record.replays += 1
        state.idempotency[key] = record
        return StandinReply(
            status: record.status, headers: record.headers + [(SyncHeaderName.idempotentReplayed, "true")], body: record.replayBody)
    }

    /// Remembers the first answer for a key.
    func remember(
        _ key: String, _ request: StandinRequest, _ json: JSONValue, reply: StandinReply, replayBody: [UInt8]? = nil,
        applied: Bool, stream: String? = nil, sequence: Int64? = nil, in state: inout StandinState
    ) {
        state.idempotency[key] = IdempotencyRecord(
            key: key, method: request.method, path: request.path, request: json, status: reply.status, headers: reply.headers,
            body: reply.body, replayBody: replayBody ?? reply.body, applications: applied ? 1 : 0, replays: 0,
            firstSeenAt: ServerClock.now(), stream: stream, sequence: sequence)
        state.idempotencyOrder.append(key)
    }

    /// Appends to the pull log.
    @discardableResult
    func appendChange(stream: String, kind: String, payload: JSONValue, changedAt: String? = nil, id: String? = nil, in state: inout StandinState) -> SyncChange {
        let change = SyncChange(
            id: id ?? "chg-\(Self.padded(state.changes.count + 1, 6))", stream: stream, kind: kind,
            changedAt: changedAt ?? ServerClock.now(), payload: payload)
        state.changes.append(change)
        return change
    }

    static func json<T: Encodable>(_ value: T) -> JSONValue {
        (try? ContractCoding.decode(JSONValue.self, from: ContractCoding.encode(value))) ?? .null
    }

    static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// A quantity as people write it: `12`, not `12.0`.
    static func quantity(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return "\(error)" }
        switch decoding {
        case .keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(decoding)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop(while: { $0 == "." }).description
    }

    /// A random token with a kind prefix, hex from the system CSPRNG: unguessable even for a
    /// stand-in, because demos run it next to real stations.
    static func newToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        var text = prefix
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            text += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }
        return text
    }

    // MARK: Inspection for tests

    /// One record per Idempotency-Key, in the order the keys were first seen.
    public var applied: [AppliedRecord] {
        state.withLock { state in state.idempotencyOrder.compactMap { state.idempotency[$0]?.appliedRecord } }
    }

    /// Times the key changed state (0 unknown or refused, 1 applied; never more).
    public func applications(ofKey key: String) -> Int {
        state.withLock { $0.idempotency[key]?.applications ?? 0 }
    }

    /// The sync push entries applied, in order.
    public var pushes: [SyncPushRequest] {
        state.withLock { $0.pushes }
    }

    public func purchaseOrder(_ number: String) -> PurchaseOrder? {
        state.withLock { $0.purchaseOrders[number] }
    }

    /// Adds or replaces an order (as `POST /_standin/orders` does).
    public func putPurchaseOrder(_ order: PurchaseOrder) {
        state.withLock { $0.purchaseOrders[order.poNumber] = order }
    }

    /// The GRNs applied, oldest first.
    public var appliedGRNs: [GRNConfirmRequest] {
        state.withLock { state in state.grns.sorted { $0.key < $1.key }.map(\.value) }
    }

    public var changes: [SyncChange] {
        state.withLock { $0.changes }
    }
}
