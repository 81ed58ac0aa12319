import EdgeAgent
import EdgeContract
import EdgeHTTP
import EdgePayloads
import EdgeSync
import FoundationEssentials

/// The sponsor portal's enrollment calls (ENR-5, ENR-6, ENR-10, ENR-13) over the project's HTTP
/// transport (libcurl), with the SYN-6 identity headers on every request (X-Device-Id, ENR-15).
///
/// Answers become `EnrollmentError`s whose messages are ENR-5's. Decisions where the spec is
/// silent: a timeout is shown at once rather than retried (each try already waited the full 30
/// s); a dropped connection counts as a network error and is retried; TLS and pin failures, 429
/// and answers that break the contract are shown as the server error. Nothing is cached.
public struct PortalClient: Sendable {
    public let transport: any HTTPTransport
    public let identity: SyncIdentity
    public let settings: EnrollmentSettings
    /// The wait between network retries; tests keep the real clock and shorten `retryDelay`.
    let pause: @Sendable (Double) async -> Void

    public init(transport: any HTTPTransport, identity: SyncIdentity, settings: EnrollmentSettings) {
        self.transport = transport
        self.identity = identity
        self.settings = settings
        pause = { seconds in try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
    }

    /// The libcurl transport for portal calls: ENR-5's timeout, not the sync transport's (whose
    /// total timeout serves the outbox's batches).
    public static func transport(_ settings: EnrollmentSettings) throws(EnrollmentError) -> CurlTransport {
        do {
            return try CurlTransport(options: TransportOptions(connectTimeout: min(10, settings.requestTimeout), totalTimeout: settings.requestTimeout,
                                                               userAgent: "edge/" + StationParts.appVersion))
        } catch {
            throw EnrollmentError(.notConfigured, "The HTTP transport cannot start: \(error.message)")
        }
    }

    /// `POST /api/enrollment/link`: the only unauthenticated call.
    public func link(_ code: LinkingCode, deviceUUID: String) async throws(EnrollmentError) -> EnrollmentLinkResponse {
        let body = try encode(EnrollmentLinkRequest(linkingCode: code.value, deviceUUID: deviceUUID))
        let response = try await send(.post, Self.url(code.sponsor.backendURL.absoluteString, APIPath.enrollmentLink), token: nil, body: body)
        switch response.status {
        case 200..<300:
            return try decode(EnrollmentLinkResponse.self, response)
        case 429, 500...:
            throw EnrollmentError(.serverError, EnrollmentError.serverErrorMessage, context: ["status": String(response.status)])
        default:
            // Invalid, expired and already used are one answer (ENR-5); so is any other refusal.
            throw EnrollmentError(.invalidCode, EnrollmentError.invalidCodeMessage, context: ["status": String(response.status)])
        }
    }

    /// `GET /api/enrollment/status?enrollment_id=` with the access token (ENR-13).
    public func status(backendURL: String, enrollmentID: String, token: BearerToken) async throws(EnrollmentError) -> EnrollmentStatusResponse {
        let query = "?enrollment_id=" + (enrollmentID.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")
        let response = try await send(.get, Self.url(backendURL, APIPath.enrollmentStatus) + query, token: token, body: [])
        try Self.checkAuthenticated(response)
        return try decode(EnrollmentStatusResponse.self, response)
    }

    /// `POST /api/enrollment/refresh` with the refresh token as bearer (ENR-10).
    public func refresh(backendURL: String, enrollmentID: String, refreshToken: BearerToken) async throws(EnrollmentError) -> EnrollmentRefreshResponse {
        let body = try encode(EnrollmentRefreshRequest(enrollmentID: enrollmentID))
        let response = try await send(.post, Self.url(backendURL, APIPath.enrollmentRefresh), token: refreshToken, body: body)
        try Self.checkAuthenticated(response)
        return try decode(EnrollmentRefreshResponse.self, response)
    }

    /// The contract's paths are relative to the backend's root, as for `sync.base_url`.
    static func url(_ base: String, _ path: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    /// 401, or 403 with TOKEN_REVOKED / PATIENT_DISCONNECTED: the credential is rejected (ENR-10);
    /// any other 4xx/5xx is a server error, which never revokes.
    static func checkAuthenticated(_ response: HTTPResponse) throws(EnrollmentError) {
        let code = (try? ContractCoding.decode(APIErrorEnvelope.self, from: response.body))?.error
        switch response.status {
        case 200..<300:
            return
        case 401:
            throw EnrollmentError(.revoked, "The server no longer accepts this enrollment's token.",
                                  context: ["status": "401", "method": "HTTP 401" + (code.map { " " + $0.code } ?? "")])
        case 403 where code?.knownCode == .tokenRevoked || code?.knownCode == .patientDisconnected:
            let name = code?.code ?? "FORBIDDEN"
            throw EnrollmentError(.revoked, "The server no longer accepts this enrollment's token.",
                                  context: ["status": "403", "method": "HTTP 403 " + name])
        default:
            throw EnrollmentError(.serverError, EnrollmentError.serverErrorMessage, context: ["status": String(response.status)])
        }
    }

    // MARK: Transport

    private func send(_ method: HTTPMethod, _ url: String, token: BearerToken?, body: [UInt8]) async throws(EnrollmentError) -> HTTPResponse {
        var headers = identity.headers
        if let token { headers.append(HTTPHeader("Authorization", token.authorizationValue)) }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body)
        var retriesLeft = settings.networkRetries
        while true {
            do {
                return try await transport.send(request)
            } catch {
                switch error.code {
                case .timedOut:
                    throw EnrollmentError(.timedOut, EnrollmentError.timedOutMessage)
                case .couldNotConnect, .couldNotResolve, .connectionDropped:
                    guard retriesLeft > 0, !Task.isCancelled else {
                        throw EnrollmentError(.noNetwork, EnrollmentError.noNetworkMessage, context: ["transport": error.code.rawValue])
                    }
                    retriesLeft -= 1
                    await pause(settings.retryDelay)
                default:
                    throw EnrollmentError(.serverError, EnrollmentError.serverErrorMessage, context: ["transport": error.code.rawValue])
                }
            }
        }
    }

    private func encode<T: Encodable>(_ value: T) throws(EnrollmentError) -> [UInt8] {
        do {
            return try ContractCoding.encode(value)
        } catch {
            throw EnrollmentError(.serverError, EnrollmentError.serverErrorMessage, context: ["reason": "request encoding"])
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws(EnrollmentError) -> T {
        do {
            return try ContractCoding.decode(type, from: response.body)
        } catch {
            // An answer that breaks the contract cannot be acted on: the coordinator tries later.
            throw EnrollmentError(.serverError, EnrollmentError.serverErrorMessage, context: ["reason": "answer does not follow the contract"])
        }
    }
}
