import EdgeAgent
import EdgeCore
import EdgeCrypto
import FoundationEssentials
import HTTPTypes
import Hummingbird

/// The kiosk's request checks (UI-7), as one router middleware:
/// - every state-changing request (anything but GET/HEAD) must carry the page's CSRF token in
///   `X-CSRF-Token`, be JSON (a cross-site form cannot send that without a CORS preflight, which
///   the kiosk never answers), and must not come from another origin (`Origin`, `Sec-Fetch-Site`);
/// - on loopback, only requests addressed to a loopback address or `localhost` (DNS rebinding);
/// - beyond loopback (or with `require_pin`), every page and call but the login needs a session
///   opened with the operator PIN (`POST /api/v1/session`): an HttpOnly, SameSite=Strict cookie,
///   Secure with TLS. Wrong PINs: five a minute, then a minute's wait.
///
/// Decision: one token per process, not per session. On loopback there is no session to bind it
/// to; the token's job is to prove the request came from a page the kiosk served, which a page
/// on another origin cannot read. It changes at every restart; the pages fetch it again then.
final class KioskGuard: RouterMiddleware, Sendable {
    typealias Context = BasicRequestContext

    static let sessionCookie = "edge_kiosk_session"
    /// Sessions last a shift; a kiosk left logged in overnight asks again.
    static let sessionLifetime: Double = 12 * 3600
    /// Wrong PINs: at most this many per minute, then every attempt is refused for the minute.
    static let pinAttemptsPerMinute = 5

    let csrfToken: String
    let settings: KioskSettings
    /// Reads the PIN from the vault at each attempt (never kept in memory longer).
    let pin: @Sendable () -> SecureBytes?
    private let sessions = Locked<[String: Double]>([:])
    private let failures = Locked<[Double]>([])

    init(settings: KioskSettings, pin: @escaping @Sendable () -> SecureBytes?) throws {
        self.settings = settings
        self.pin = pin
        csrfToken = Self.hex(try Random.bytes(32))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        // DNS rebinding: a page from a name that resolves to 127.0.0.1 would be same-origin with
        // the kiosk and could read its token. On loopback only the addresses themselves are served.
        if settings.isLoopback, !Self.loopbackHost(request.head.authority ?? "") {
            throw KioskError(.crossSite, "Refused: the kiosk answers only as 127.0.0.1 or localhost.", status: .misdirectedRequest)
        }
        if settings.requiresPIN, !Self.open(path, method: request.method), !hasSession(request) {
            if path.hasPrefix("/api/") { throw KioskError(.pinRequired, "Enter the operator PIN first.", status: .unauthorized) }
            return KioskResponse.redirect("/login")
        }
        if request.method != .get, request.method != .head {
            try checkStateChange(request)
        }
        return try await next(request, context)
    }

    static func loopbackHost(_ authority: String) -> Bool {
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            return host[host.index(after: host.startIndex)..<close] == "::1"
        }
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return host == "localhost" || (host.hasPrefix("127.") && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil })
    }

    /// What may be reached without a session: the login page, its script and style, the login call.
    static func open(_ path: String, method: HTTPRequest.Method) -> Bool {
        path == "/login" || path.hasPrefix("/static/") || (path == "/api/v1/session" && method == .post)
    }

    private func checkStateChange(_ request: Request) throws {
        if let site = request.headers[KioskHeader.fetchSite], site != "same-origin", site != "none" {
            throw KioskError(.crossSite, "Refused: the request came from another site.", status: .forbidden)
        }
        if let origin = request.headers[.origin] {
            let host = request.head.authority ?? ""
            let expected = (settings.tlsCertificate == nil ? "http://" : "https://") + host
            guard origin == expected else {
                throw KioskError(.crossSite, "Refused: the request came from another origin.", status: .forbidden)
            }
        }
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/json") else {
            throw KioskError(.badRequest, "Send JSON (Content-Type: application/json).", status: .unsupportedMediaType)
        }
        guard let token = request.headers[KioskHeader.csrfToken], ConstantTime.equal(Array(token.utf8), Array(csrfToken.utf8)) else {
            throw KioskError(.csrf, "Refused: the page is out of date or the request did not come from it (CSRF token missing or wrong). Reload the page.",
                             status: .forbidden)
        }
    }

    // MARK: PIN sessions (beyond loopback)

    private func hasSession(_ request: Request) -> Bool {
        guard let id = Self.cookie(Self.sessionCookie, in: request.headers[.cookie] ?? "") else { return false }
        let now = Date().timeIntervalSince1970
        return sessions.withLock { sessions in
            guard let expires = sessions[id] else { return false }
            if expires < now { sessions[id] = nil; return false }
            return true
        }
    }

    /// Checks `candidate` against the vault's PIN and opens a session: the Set-Cookie value.
    func logIn(pin candidate: String) throws -> String {
        let now = Date().timeIntervalSince1970
        let recent = failures.withLock { failures in
            failures.removeAll { $0 < now - 60 }
            return failures.count
        }
        guard recent < Self.pinAttemptsPerMinute else {
            throw KioskError(.pinRefused, "Too many wrong PINs. Wait a minute and try again.", status: .tooManyRequests)
        }
        guard let expected = pin() else {
            throw KioskError(.unavailable, "No operator PIN is set on this station (edge vault put \(settings.pinSecret)).", status: .serviceUnavailable)
        }
        var typed = SecureBytes(Array(candidate.utf8))
        defer { typed = SecureBytes([]) }
        guard typed == expected else {
            failures.withLock { $0.append(now) }
            throw KioskError(.pinRefused, "Wrong PIN.", status: .unauthorized)
        }
        let id = Self.hex(try Random.bytes(32))
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            sessions[id] = now + Self.sessionLifetime
        }
        // Secure whenever the kiosk speaks TLS (always beyond loopback); a PIN on plain loopback
        // (`require_pin`) keeps the cookie on this machine anyway.
        let secure = settings.tlsCertificate != nil ? " Secure;" : ""
        return "\(Self.sessionCookie)=\(id); Path=/; HttpOnly;\(secure) SameSite=Strict; Max-Age=\(Int(Self.sessionLifetime))"
    }

    static func cookie(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pair = part.drop { $0 == " " }
            if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
        }
        return nil
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
