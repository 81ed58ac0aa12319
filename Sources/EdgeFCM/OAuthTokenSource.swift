import EdgeContract
import EdgeCore
import EdgeHTTP
import FoundationEssentials
import Synchronization

/// Access tokens for FCM from a service account (PSH-8): an RS256-signed JWT exchanged at the
/// account's token URI (RFC 7523), cached and refreshed ahead of its expiry.
public actor OAuthTokenSource {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// `iat` is backdated so a station clock slightly ahead of Google's is not "in the future".
    public static let backdateSeconds: Int64 = 60
    /// Google's maximum JWT lifetime.
    public static let lifetimeSeconds: Int64 = 3600
    /// A cached token with less than this left is replaced (PSH-8: >= 3m45s).
    public static let refreshMarginSeconds: Double = 225

    private let account: ServiceAccount
    private let transport: any HTTPTransport
    private let clock: @Sendable () -> Double
    /// The token's lifetime is counted on the boot clock: a wall clock stepped back an hour must
    /// not keep an expired token in use, nor one stepped forward drop a good one (issue #30).
    private let bootClock: @Sendable () -> BootInstant
    /// Set by the exchange in flight (one at a time) for the token it returns.
    private var exchangedUntil: BootInstant?
    private var inFlight: Task<FCMAccessToken, any Error>?
    /// The cached token and when it expires (boot clock), readable without entering the actor:
    /// every send asks for the token, and entering the actor and leaving it were two task
    /// switches a send (issue #31). Written only inside the actor.
    private let current = Mutex<(token: FCMAccessToken, until: BootInstant)?>(nil)
    /// Exchanges made, for tests and metrics.
    public private(set) var exchanges = 0

    /// `clock` is wall-clock Unix seconds (the JWT's iat/exp and the token's `expiresAt` are wall
    /// time); `bootClock` measures how long the token is used.
    public init(account: ServiceAccount, transport: any HTTPTransport,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                bootClock: @escaping @Sendable () -> BootInstant = BootClock.now) {
        self.account = account
        self.transport = transport
        self.clock = clock
        self.bootClock = bootClock
    }

    /// A token valid for at least the refresh margin: the cached one, or a new one. Concurrent
    /// callers share one exchange.
    public nonisolated func accessToken() async throws(FCMError) -> FCMAccessToken {
        if let token = freshToken() { return token }
        return try await refreshedToken()
    }

    /// The cached token if it has at least the refresh margin left.
    private nonisolated func freshToken() -> FCMAccessToken? {
        guard let current = current.withLock({ $0 }), let left = current.until.since(bootClock()),
              left >= Self.refreshMarginSeconds else { return nil }
        return current.token
    }

    private func refreshedToken() async throws(FCMError) -> FCMAccessToken {
        // Another caller's exchange may have finished while this one waited for the actor.
        if let token = freshToken() { return token }
        let task: Task<FCMAccessToken, any Error>
        if let inFlight {
            task = inFlight
        } else {
            task = Task(executorPreference: StationExecutor.shared) { try await self.exchange() }
            inFlight = task
        }
        do {
            // The exchange is a task of its own (shared by the callers), so a caller's
            // cancellation does not reach it by itself: a relay stopping while the token endpoint
            // never answers would wait for the whole timeout (issue #30 item 4). A cancelled
            // caller cancels it; other callers waiting on it get the failure and ask again.
            let token = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
            current.withLock { $0 = exchangedUntil.map { (token, $0) } }
            inFlight = nil
            return token
        } catch let error as FCMError {
            inFlight = nil
            throw error
        } catch {
            inFlight = nil
            throw FCMError(.tokenEndpointFailure, "The access token could not be obtained.")
        }
    }

    /// Drops the cached token (FCM answered 401 UNAUTHENTICATED with it).
    public func invalidate() {
        current.withLock { $0 = nil }
    }

    /// The signed JWT for `now` (wall-clock seconds).
    public static func assertion(for account: ServiceAccount, now: Double) throws(FCMError) -> String {
        let issuedAt = Int64(now.rounded(.down)) - backdateSeconds
        let header: JSONValue = .object(["alg": .string("RS256"), "typ": .string("JWT")])
        let claims: JSONValue = .object([
            "iss": .string(account.clientEmail),
            "scope": .string(scope),
            "aud": .string(account.tokenURI),
            "iat": .integer(issuedAt),
            "exp": .integer(issuedAt + lifetimeSeconds),
        ])
        let signingInput: String
        do {
            signingInput = Base64URL.encode(try ContractCoding.encode(header)) + "." + Base64URL.encode(try ContractCoding.encode(claims))
        } catch {
            throw FCMError(.signingFailure, "The JWT could not be serialized.")
        }
        let signature: [UInt8]
        do {
            signature = try account.privateKey.sign(sha256: Array(signingInput.utf8))
        } catch {
            throw FCMError(.signingFailure, "The JWT could not be signed.", context: ["crypto": error.code.rawValue])
        }
        return signingInput + "." + Base64URL.encode(signature)
    }

    private func exchange() async throws(FCMError) -> FCMAccessToken {
        exchanges += 1
        let now = clock()
        let started = bootClock()
        let jwt = try Self.assertion(for: account, now: now)
        // The JWT's characters (base64url and ".") need no percent-encoding; the grant type's ":" may
        // stay too (RFC 3986 query characters), as Google's own client libraries send it.
        let form = "grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=" + jwt
        let request = HTTPRequest(method: .post, url: account.tokenURI,
                                  headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw FCMError(.tokenEndpointFailure, "The token endpoint could not be reached.", context: ["transport": error.code.rawValue])
        }
        let document = try? ContractCoding.decode(JSONValue.self, from: response.body)
        guard response.status == 200 else {
            let code = document?["error"]?.stringValue
            if code == "invalid_grant" {
                throw FCMError(.invalidGrant, "Google refused the service-account token: check the station's clock and that the key is still valid.",
                               context: ["status": String(response.status)])
            }
            throw FCMError(.tokenEndpointFailure, "The token endpoint answered \(response.status).",
                           context: ["status": String(response.status), "error": code ?? "none"])
        }
        guard let value = document?["access_token"]?.stringValue, !value.isEmpty,
              case .integer(let lifetime)? = document?["expires_in"], lifetime > 0 else {
            throw FCMError(.tokenEndpointFailure, "The token endpoint's answer has no access token or lifetime.")
        }
        // Expiry counted from when the request was sent, so a slow answer only shortens it.
        exchangedUntil = BootInstant(bootID: started.bootID, seconds: started.seconds + Double(lifetime))
        return FCMAccessToken(value: value, expiresAt: now + Double(lifetime))
    }
}
