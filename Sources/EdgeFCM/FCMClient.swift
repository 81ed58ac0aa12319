import EdgeContract
import EdgeCore
import EdgeHTTP
import FoundationEssentials

/// Sends FCM HTTP v1 messages (PSH-8, PSH-9) and sorts FCM's answers into what the sender does:
/// send, prune the token, fail the message, retry later.
///
/// Decision: `send` makes one attempt (plus the one token refresh a 401 earns) and reports the
/// wait before the next; the caller keeps the message queued and owns the retry schedule, so a
/// restart loses no message and tests drive time instead of sleeping. A 429 pauses the whole
/// project here: until the pause ends, `send` answers `.retry` without touching the network.
///
/// Decision: a class whose one piece of mutable state (the pauses) sits behind a mutex, not an
/// actor. As an actor every send entered it twice (to start, and to read the answer after the
/// transport resumed), so the up to 200 sends in flight queued on one executor for work that
/// shares nothing. The work itself is small (3-4 µs a send, perf, Benchmarks section 6); what
/// the change removes is the queueing, which grows with the sends open.
public final class FCMClient: Sendable {
    /// PSH-9: requests may take this long before they count as timed out.
    public static let minimumRequestTimeout: Double = 10
    /// The first retry of a send whose connection broke, doubled for each of the next quick
    /// retries, plus up to a second of jitter.
    public static let reconnectDelay: Double = 0.5
    /// Broken connections retried quickly before the PSH-9 backoff takes over.
    public static let quickReconnects = 3

    public let configuration: FCMClientConfiguration
    private let transport: any HTTPTransport
    private let tokens: OAuthTokenSource
    private let clock: @Sendable () -> Double
    private let random: @Sendable () -> Double
    /// Project → until when sending is paused after a 429 (wall seconds).
    private let pausedUntil = Locked<[String: Double]>([:])

    /// `transport` should be an `FCMTransport` (EdgeFCMTransport) with `totalTimeout >= minimumRequestTimeout` (it
    /// multiplexes HTTP/2 streams; `FCMTransport` says why not libcurl here). `clock` is wall-clock seconds;
    /// `random` a uniform number in [0, 1) for the backoff jitter.
    public init(configuration: FCMClientConfiguration = FCMClientConfiguration(), transport: any HTTPTransport, tokens: OAuthTokenSource,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.configuration = configuration
        self.transport = transport
        self.tokens = tokens
        self.clock = clock
        self.random = random
    }

    /// Where `send` is cheapest to run (the transport's event loop, if it has one): see
    /// `HTTPTransport.preferredExecutor`. `send` never blocks, so it may run there.
    public var preferredExecutor: (any TaskExecutor)? { transport.preferredExecutor }

    /// Until when sending for `projectID` is paused after a 429 (wall seconds), nil if not.
    public func pause(for projectID: String) -> Double? {
        guard let until = pausedUntil.withLock({ $0[projectID] }), until > clock() else { return nil }
        return until
    }

    /// The wait before retry number `failures` (0 for the first): at least `minimumRetryDelay`,
    /// plus exponential backoff with full jitter.
    public func retryDelay(failures: Int) -> Double {
        configuration.minimumRetryDelay + configuration.backoff.delay(failures: failures, unit: random())
    }

    /// Sends `message` to project `projectID`. `failures` is how many transient failures the
    /// message has had so far (it sizes the backoff).
    public func send(_ message: FCMMessage, projectID: String, failures: Int = 0) async -> FCMOutcome {
        if let until = pause(for: projectID) {
            return .retry(after: until - clock(), reason: "QUOTA_EXCEEDED")
        }
        let first = await attempt(message, projectID: projectID, failures: failures)
        guard case .unauthorized = first else { return first.outcome }
        // One refresh and one retry (PSH-8): the token may have been revoked early.
        await tokens.invalidate()
        let second = await attempt(message, projectID: projectID, failures: failures)
        if case .unauthorized = second { return .retry(after: retryDelay(failures: failures), reason: "UNAUTHENTICATED") }
        return second.outcome
    }

    private enum Attempt {
        case done(FCMOutcome)
        case unauthorized

        var outcome: FCMOutcome {
            switch self {
            case .done(let outcome): return outcome
            case .unauthorized: return .failed(reason: "UNAUTHENTICATED")
            }
        }
    }

    private func attempt(_ message: FCMMessage, projectID: String, failures: Int) async -> Attempt {
        let token: FCMAccessToken
        do {
            token = try await tokens.accessToken()
        } catch {
            return .done(.unauthenticated(error))
        }
        let request = HTTPRequest(method: .post, url: configuration.endpoint + "/v1/projects/" + projectID + "/messages:send",
                                  headers: [HTTPHeader("authorization", token.authorization),
                                            HTTPHeader("content-type", "application/json; charset=UTF-8")],
                                  body: message.body)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            // Timeouts, resets, TLS trouble: the message is not at fault (PSH-9 retries timeouts).
            // Decision: a connection that broke under a send (closed between the server taking
            // the message and its answer, or a framing error), up to three times running, is
            // retried after 0.5, 1, 2 s plus jitter on a new connection; FCM's collapse key makes
            // a repeat harmless (PSH-6). A GOAWAY itself costs no wait: FCMTransport lets the
            // streams the server took finish and starts the others on a new connection (PSH-10).
            // Later failures and every other transport error wait the PSH-9 backoff (10 s+).
            if (error.code == .connectionDropped || error.code == .protocolError) && failures < Self.quickReconnects {
                let delay = Self.reconnectDelay * Double(1 << failures) + random()
                return .done(.retry(after: delay, reason: "TRANSPORT_" + error.code.rawValue))
            }
            return .done(.retry(after: retryDelay(failures: failures), reason: "TRANSPORT_" + error.code.rawValue))
        }
        return classify(response, projectID: projectID, failures: failures)
    }

    /// FCM's answer to a send that went through: `{"name": ...}`, the only part read.
    private struct SendAnswer: Decodable {
        let name: String?
    }

    private func classify(_ response: HTTPResponse, projectID: String, failures: Int) -> Attempt {
        if response.status == 200 {
            // Decision: a success is decoded as `SendAnswer`, not as a `JSONValue`: decoding a
            // JSONValue tries each JSON type in turn and builds an error for each miss (1.6 % of
            // the relay's CPU in the benchmark profile, for a one-member answer); the struct
            // reads the one member and misses nothing.
            guard let name = (try? ContractCoding.decode(SendAnswer.self, from: response.body))?.name else {
                return .done(.retry(after: retryDelay(failures: failures), reason: "MALFORMED_SUCCESS"))
            }
            return .done(.sent(name: name))
        }
        let document = try? ContractCoding.decode(JSONValue.self, from: response.body)
        let error = FCMErrorBody(document)
        let code = error.fcmErrorCode ?? error.status ?? "HTTP_\(response.status)"
        switch (response.status, code) {
        case (401, _):
            return .unauthorized
        case (_, "UNREGISTERED"), (_, "SENDER_ID_MISMATCH"):
            return .done(.pruneToken(reason: code))
        case (429, _), (_, "QUOTA_EXCEEDED"):
            let wait = response.header("Retry-After").flatMap { RetryAfter.seconds($0, now: clock()) } ?? configuration.defaultQuotaWait
            // Slows every message of the project, not just this one (PSH-9).
            let until = clock() + wait
            pausedUntil.withLock { $0[projectID] = max($0[projectID] ?? 0, until) }
            return .done(.retry(after: wait, reason: "QUOTA_EXCEEDED"))
        case (_, "INVALID_ARGUMENT"):
            return .done(error.concernsToken ? .pruneToken(reason: "INVALID_ARGUMENT") : .failed(reason: "INVALID_ARGUMENT"))
        case (500...599, _):
            // 500, 503 and a proxy's 502 (with an HTML body, hence no FCM code) are transient.
            var wait = retryDelay(failures: failures)
            if let retryAfter = response.header("Retry-After").flatMap({ RetryAfter.seconds($0, now: clock()) }) { wait = max(wait, retryAfter) }
            return .done(.retry(after: wait, reason: code))
        default:
            return .done(.failed(reason: code))
        }
    }
}
