import EdgeContract
import EdgeCrypto
import FoundationEssentials

/// The FCM stand-in's endpoints: Google's OAuth2 token endpoint for service accounts (RFC 7523)
/// and FCM HTTP v1 `messages:send`, validating what real FCM validates and answering with its
/// envelopes (PSH-7..9).
extension StandinBackend {
    /// The answer for an FCM path, nil for any other path.
    func fcmRoute(_ request: StandinRequest) -> StandinReply? {
        let isToken = request.path == FCMStandin.tokenPath
        let isSend = request.path.hasPrefix(FCMStandin.messagesPrefix) && request.path.hasSuffix(FCMStandin.messagesSuffix)
        guard isToken || isSend else { return nil }
        guard let publicKeyPEM = configuration.fcmPublicKeyPEM else {
            return .error(404, .notFound, "No such path: \(request.path)")
        }
        guard request.method == "POST" else {
            return Self.fcmError(405, "METHOD_NOT_ALLOWED", "Only POST", errorCode: nil)
        }
        if isToken { return tokenEndpoint(request, publicKeyPEM: publicKeyPEM) }
        let projectID = String(request.path.dropFirst(FCMStandin.messagesPrefix.count).dropLast(FCMStandin.messagesSuffix.count))
        return messagesSend(request, projectID: projectID)
    }

    private func tokenEndpoint(_ request: StandinRequest, publicKeyPEM: [UInt8]) -> StandinReply {
        fcm.state.withLock { $0.tokenRequests += 1 }
        let form = Self.formFields(request.body)
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return Self.oauthError("unsupported_grant_type")
        }
        let host = request.header("host") ?? ""
        guard verifyAssertion(assertion, publicKeyPEM: publicKeyPEM, audience: configuration.scheme + "://" + host + FCMStandin.tokenPath) else {
            return Self.oauthError("invalid_grant")
        }
        let token = Self.newToken(prefix: "ya29.standin-")
        let lifetime = configuration.fcmTokenLifetime
        fcm.state.withLock { $0.tokens[token] = Date().timeIntervalSince1970 + Double(lifetime) }
        return .json(200, JSONValue.object([
            "access_token": .string(token), "expires_in": .integer(Int64(lifetime)), "token_type": .string("Bearer"),
        ]))
    }

    /// RS256 over `header.claims` with the configured key, then Google's claim rules: iss, the
    /// FCM scope, aud = this token URI, exp after iat by at most an hour, now inside [iat - 5 min, exp].
    private func verifyAssertion(_ assertion: String, publicKeyPEM: [UInt8], audience: String) -> Bool {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URL(parts[0]), let claimBytes = Self.base64URL(parts[1]),
              let signature = Self.base64URL(parts[2]),
              let header = try? ContractCoding.decode(JSONValue.self, from: headerBytes),
              let claims = try? ContractCoding.decode(JSONValue.self, from: claimBytes),
              header["alg"]?.stringValue == "RS256", header["typ"]?.stringValue == "JWT",
              let key = try? RSAPublicKey(pem: publicKeyPEM),
              key.verify(signature: signature, sha256: Array((parts[0] + "." + parts[1]).utf8)) else { return false }
        guard configuration.fcmClientEmail.map({ claims["iss"]?.stringValue == $0 }) ?? (claims["iss"]?.stringValue != nil),
              claims["scope"]?.stringValue?.split(separator: " ").contains("https://www.googleapis.com/auth/firebase.messaging") == true,
              claims["aud"]?.stringValue == audience,
              case .integer(let iat)? = claims["iat"], case .integer(let exp)? = claims["exp"] else { return false }
        let now = Int64(Date().timeIntervalSince1970)
        return exp > iat && exp - iat <= 3600 && now >= iat - 300 && now < exp
    }

    private func messagesSend(_ request: StandinRequest, projectID: String) -> StandinReply {
        let now = Date().timeIntervalSince1970
        let authorized = fcm.state.withLock { state in
            request.bearerToken.flatMap { state.tokens[$0] }.map { $0 > now } ?? false
        }
        let document = try? ContractCoding.decode(JSONValue.self, from: request.body)
        let message = document?["message"]
        func answer(_ reply: StandinReply, error: String?) -> StandinReply {
            fcm.state.withLock { state in
                state.received.append(FCMReceivedMessage(projectID: projectID, message: message, bodyBytes: request.body.count,
                                                         status: reply.status, error: error, connection: request.connection))
            }
            return reply
        }
        guard authorized else {
            return answer(Self.fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", errorCode: nil), error: "UNAUTHENTICATED")
        }
        if let violation = Self.violation(document: document, bytes: request.body.count) {
            return answer(Self.invalidArgument(field: violation.field, violation.description), error: "INVALID_ARGUMENT")
        }
        let token = message?["token"]?.stringValue
        let fault = fcm.state.withLock { fcm.takeFault(token: token, in: &$0) }
        if let fault, let refusal = Self.refusal(for: fault.kind) {
            return answer(refusal.reply, error: refusal.error)
        }
        let number = fcm.state.withLock { state -> Int in
            state.accepted += 1
            return state.accepted
        }
        var reply = StandinReply.json(200, JSONValue.object(["name": .string("projects/\(projectID)/messages/0:\(1_700_000_000_000 + number)%standin")]))
        switch fault?.kind {
        case .goAway?: reply.closeConnection = true
        case .slow(let seconds)?: reply.delay = seconds
        default: break
        }
        return answer(reply, error: nil)
    }

    /// FCM's answer refusing a message for `kind`; nil for the faults that accept it and change
    /// only how it is answered (goaway, slow).
    private static func refusal(for kind: FCMFault.Kind) -> (reply: StandinReply, error: String)? {
        switch kind {
        case .unregistered:
            return (fcmError(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED"), "UNREGISTERED")
        case .senderIDMismatch:
            return (fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH"), "SENDER_ID_MISMATCH")
        case .invalidToken:
            return (invalidArgument(field: "message.token", "The registration token is not a valid FCM registration token"), "INVALID_ARGUMENT")
        case .invalidPayload:
            return (invalidArgument(field: "message.data", "Invalid value at 'message.data'"), "INVALID_ARGUMENT")
        case .quotaExceeded(let retryAfter):
            var reply = fcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send requests'.", errorCode: "QUOTA_EXCEEDED")
            if let retryAfter { reply.headers.append(("Retry-After", retryAfter)) }
            return (reply, "QUOTA_EXCEEDED")
        case .serverError(let status):
            let name = status == 503 ? "UNAVAILABLE" : "INTERNAL"
            return (fcmError(status, name, "The service is currently unavailable.", errorCode: name), name)
        case .badGatewayHTML:
            let html = "<!DOCTYPE html><html lang=en><title>Error 502 (Server Error)!!1</title><p><b>502.</b> That's an error.</html>"
            return (StandinReply(status: 502, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Array(html.utf8)), "BAD_GATEWAY")
        case .unauthenticated:
            return (fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", errorCode: nil), "UNAUTHENTICATED")
        case .goAway, .slow:
            return nil
        }
    }

    /// What real FCM refuses with INVALID_ARGUMENT: the field and why, or nil when valid.
    static func violation(document: JSONValue?, bytes: Int) -> (field: String, description: String)? {
        guard case .object(let top)? = document, case .object(let message)? = top["message"] else {
            return ("message", "The body must be {\"message\": {...}}")
        }
        if let extra = top.keys.first(where: { $0 != "message" && $0 != "validate_only" }) { return (extra, "Unknown name \"\(extra)\"") }
        if bytes > 4096 { return ("message", "Message is too big") }
        let targets = ["token", "topic", "condition"].filter { message[$0] != nil }
        if targets.count != 1 { return ("message", "Exactly one of token, topic or condition is required") }
        if let token = message["token"], token.stringValue?.isEmpty != false { return ("message.token", "The registration token is not a valid FCM registration token") }
        if let data = message["data"] {
            guard case .object(let members) = data else { return ("message.data", "data must be a map") }
            if let key = members.first(where: { $0.value.stringValue == nil })?.key { return ("message.data[\(key)]", "data values must be strings") }
        }
        if let notification = message["notification"] {
            for key in ["title", "body"] where notification[key] != nil && notification[key]?.stringValue == nil {
                return ("message.notification.\(key)", "must be a string")
            }
        }
        if let android = message["android"] {
            if let ttl = android["ttl"], !isDuration(ttl.stringValue) { return ("message.android.ttl", "Invalid duration") }
            if let priority = android["priority"], !["HIGH", "NORMAL"].contains(priority.stringValue ?? "") {
                return ("message.android.priority", "Invalid priority")
            }
            if let count = android["notification"]?["notification_count"], case .integer = count {} else if android["notification"]?["notification_count"] != nil {
                return ("message.android.notification.notification_count", "must be an integer")
            }
        }
        if let apns = message["apns"] {
            if case .object(let headers)? = apns["headers"] {
                if let key = headers.first(where: { $0.value.stringValue == nil })?.key { return ("message.apns.headers[\(key)]", "headers must be strings") }
                if let collapse = headers["apns-collapse-id"]?.stringValue, collapse.utf8.count > 64 {
                    return ("message.apns.headers[apns-collapse-id]", "apns-collapse-id must be at most 64 bytes")
                }
            }
            if let badge = apns["payload"]?["aps"]?["badge"], case .integer = badge {} else if apns["payload"]?["aps"]?["badge"] != nil {
                return ("message.apns.payload.aps.badge", "badge must be an integer")
            }
        }
        return nil
    }

    private static func isDuration(_ text: String?) -> Bool {
        guard let text, text.hasSuffix("s") else { return false }
        let number = text.dropLast()
        return !number.isEmpty && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
    }

    /// `{"error": {"code", "message", "status", "details": [FcmError]}}`, FCM's envelope.
    static func fcmError(_ code: Int, _ status: String, _ message: String, errorCode: String?, extra: [JSONValue] = []) -> StandinReply {
        var details = extra
        if let errorCode {
            details.append(.object(["@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"), "errorCode": .string(errorCode)]))
        }
        return .json(code, JSONValue.object(["error": .object([
            "code": .integer(Int64(code)), "message": .string(message), "status": .string(status), "details": .array(details),
        ])]))
    }

    static func invalidArgument(field: String, _ description: String) -> StandinReply {
        let badRequest = JSONValue.object([
            "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
            "fieldViolations": .array([.object(["field": .string(field), "description": .string(description)])]),
        ])
        return fcmError(400, "INVALID_ARGUMENT", description, errorCode: "INVALID_ARGUMENT", extra: [badRequest])
    }

    static func oauthError(_ error: String) -> StandinReply {
        .json(400, JSONValue.object(["error": .string(error), "error_description": .string("Refused by the stand-in")]))
    }

    /// `a=b&c=d` with %XX and + decoded.
    static func formFields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            fields[percentDecoded(parts[0])] = percentDecoded(parts[1])
        }
        return fields
    }

    private static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func base64URL(_ text: Substring) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
