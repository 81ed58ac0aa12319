import EdgeContract
import EdgeHTTP
import EdgeStore

/// Turns an outbox entry into its HTTP request (SYN-6, SYN-10).
///
/// A kind declared with its own endpoint (`OutboxKind.path`, e.g. receiving's GRN confirmations,
/// whose endpoint owns the RCV-3 conflict rule) is POSTed there with the payload as the body;
/// every other kind is an event wrapped in a `SyncPushRequest` for `POST /api/sync/push`.
public struct OutboxRequestBuilder: Sendable {
    public let baseURL: String
    public let identity: SyncIdentity
    /// Kinds with their own endpoint, by name.
    let paths: [String: String]

    public init(baseURL: String, identity: SyncIdentity, kinds: [OutboxKind] = []) {
        paths = Dictionary(kinds.compactMap { kind in kind.path.map { (kind.name, $0) } }, uniquingKeysWith: { first, _ in first })
        // "https://host/base/" and "https://host/base" mean the same backend.
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.identity = identity
    }

    public func request(for entry: OutboxEntry, token: BearerToken?) throws(SyncError) -> HTTPRequest {
        let path: String
        let body: [UInt8]
        if let own = paths[entry.kind] {
            path = own
            body = entry.payload
        } else {
            path = APIPath.syncPush
            body = try envelope(entry)
        }
        var headers = identity.headers
        headers.append(HTTPHeader(SyncHeaderName.idempotencyKey, entry.idempotencyKey))
        if let token { headers.append(HTTPHeader(SyncHeaderName.authorization, token.authorizationValue)) }
        return HTTPRequest(method: .post, url: baseURL + path, headers: headers, body: body)
    }

    /// A GET of `path` (with its query) carrying the SYN-6 headers.
    public func get(_ pathAndQuery: String, token: BearerToken?) -> HTTPRequest {
        var headers = identity.headers
        if let token { headers.append(HTTPHeader(SyncHeaderName.authorization, token.authorizationValue)) }
        return HTTPRequest(method: .get, url: baseURL + pathAndQuery, headers: headers)
    }

    /// The push envelope with the payload's bytes spliced in exactly as enqueued: decoding and
    /// re-encoding could change numbers (precision, exponent form) the caller wrote.
    ///
    /// The envelope is encoded with `"payload": null` and that member is replaced. With sorted
    /// keys only `device_uuid` and `kind`, both strings, come before it, and the encoder escapes
    /// every quote inside a string, so the first unescaped `"payload":null` is the member.
    func envelope(_ entry: OutboxEntry) throws(SyncError) -> [UInt8] {
        let request = SyncPushRequest(deviceUUID: identity.deviceID, stream: entry.stream, kind: entry.kind,
                                      sequence: entry.sequence, createdAt: entry.createdAt, payload: .null)
        let encoded: [UInt8]
        do {
            encoded = try ContractCoding.encode(request)
        } catch {
            throw SyncError(.invalidAnswer, "The push envelope for outbox entry \(entry.id) could not be encoded.",
                            context: ["id": String(entry.id)])
        }
        let marker = Array(#""payload":null"#.utf8)
        guard let start = Self.firstIndex(of: marker, in: encoded) else {
            throw SyncError(.invalidAnswer, "The push envelope for outbox entry \(entry.id) has no payload member.",
                            context: ["id": String(entry.id)])
        }
        let valueStart = start + marker.count - 4
        return Array(encoded[..<valueStart]) + entry.payload + Array(encoded[(start + marker.count)...])
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}
