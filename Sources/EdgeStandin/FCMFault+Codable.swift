/// The control API's shape of an FCM fault (`/_standin/fcm/faults`):
/// `{"kind": "unregistered" | "sender_id_mismatch" | "invalid_token" | "invalid_payload" |
/// "quota_exceeded" | "server_error" | "bad_gateway_html" | "unauthenticated" | "goaway" | "slow",
/// "token"?: only messages to this token, "times"?: how many messages (default 1),
/// "forever"?: true for every message, "retry_after"?: quota_exceeded's Retry-After,
/// "status"?: server_error's 500 (default) or 503, "seconds"?: slow's delay}`.
extension FCMFault: Codable {
    enum CodingKeys: String, CodingKey {
        case kind, token, times, forever
        case retryAfter = "retry_after"
        case status, seconds
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .kind)
        let kind: Kind
        switch name {
        case "unregistered": kind = .unregistered
        case "sender_id_mismatch": kind = .senderIDMismatch
        case "invalid_token": kind = .invalidToken
        case "invalid_payload": kind = .invalidPayload
        case "quota_exceeded": kind = .quotaExceeded(retryAfter: try c.decodeIfPresent(String.self, forKey: .retryAfter))
        case "server_error":
            let status = try c.decodeIfPresent(Int.self, forKey: .status) ?? 500
            guard status == 500 || status == 503 else {
                throw DecodingError.dataCorruptedError(forKey: .status, in: c, debugDescription: "server_error takes status 500 or 503")
            }
            kind = .serverError(status: status)
        case "bad_gateway_html": kind = .badGatewayHTML
        case "unauthenticated": kind = .unauthenticated
        case "goaway": kind = .goAway
        case "slow":
            let seconds = try c.decodeIfPresent(Double.self, forKey: .seconds) ?? 1
            guard seconds >= 0, seconds <= 120 else {
                throw DecodingError.dataCorruptedError(forKey: .seconds, in: c, debugDescription: "slow takes 0 to 120 seconds")
            }
            kind = .slow(seconds: seconds)
        default:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown FCM fault kind \(name)")
        }
        let times = try c.decodeIfPresent(Int.self, forKey: .times) ?? 1
        guard times >= 1 else { throw DecodingError.dataCorruptedError(forKey: .times, in: c, debugDescription: "times must be at least 1") }
        self.init(kind, token: try c.decodeIfPresent(String.self, forKey: .token),
                  times: try c.decodeIfPresent(Bool.self, forKey: .forever) == true ? nil : times)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch kind {
        case .unregistered: try c.encode("unregistered", forKey: .kind)
        case .senderIDMismatch: try c.encode("sender_id_mismatch", forKey: .kind)
        case .invalidToken: try c.encode("invalid_token", forKey: .kind)
        case .invalidPayload: try c.encode("invalid_payload", forKey: .kind)
        case .quotaExceeded(let retryAfter):
            try c.encode("quota_exceeded", forKey: .kind)
            try c.encodeIfPresent(retryAfter, forKey: .retryAfter)
        case .serverError(let status):
            try c.encode("server_error", forKey: .kind)
            try c.encode(status, forKey: .status)
        case .badGatewayHTML: try c.encode("bad_gateway_html", forKey: .kind)
        case .unauthenticated: try c.encode("unauthenticated", forKey: .kind)
        case .goAway: try c.encode("goaway", forKey: .kind)
        case .slow(let seconds):
            try c.encode("slow", forKey: .kind)
            try c.encode(seconds, forKey: .seconds)
        }
        try c.encodeIfPresent(token, forKey: .token)
        if let times { try c.encode(times, forKey: .times) } else { try c.encode(true, forKey: .forever) }
    }
}
