import CCurl
import Glibc

/// A request URL parsed once by curl's own URL parser (CURLU) and checked before any traffic.
/// The same parsed handle is given to the transfer (CURLOPT_CURLU), so what was checked is
/// exactly what curl connects to: no second parse that could read the host differently.
///
/// Decision: plain `http://` is allowed only to loopback hosts (127.0.0.0/8, ::1, `localhost`),
/// where the stand-in server runs; every other host must be `https://` (`.insecureURL`). curl
/// resolves `localhost` itself to loopback addresses (never through DNS), so the name is safe.
/// Other schemes (ftp, file, …) are `.invalidURL`; CURLOPT_PROTOCOLS_STR repeats the rule.
final class RequestTarget: @unchecked Sendable {
    // @unchecked: the CURLU handle is only read after init, by one transfer at a time.
    let handle: OpaquePointer
    let scheme: String
    let host: String
    /// The URL without query, fragment or user information, for error context.
    let printable: String

    init(_ url: String) throws(TransportError) {
        let printable = URLRedaction.printable(url)
        let handle = try Curl.urlInit()
        do {
            try Curl.urlSet(handle, url, printable: printable)
        } catch {
            Curl.urlCleanup(handle)
            throw error
        }
        guard let scheme = Curl.urlPart(handle, CURLUPART_SCHEME).map(ASCIILowercase.string),
              let host = Curl.urlPart(handle, CURLUPART_HOST), !host.isEmpty else {
            Curl.urlCleanup(handle)
            throw TransportError(.invalidURL, "The server address has no host.", context: ["url": printable])
        }
        self.handle = handle
        self.scheme = scheme
        self.host = host
        self.printable = printable
        switch scheme {
        case "https":
            break
        case "http":
            guard Self.isLoopback(host) else {
                throw TransportError(.insecureURL, "Plain http is only allowed to this machine; the server address must use https.",
                                     context: ["url": printable, "host": host])
            }
        default:
            throw TransportError(.invalidURL, "The server address must be an https URL.", context: ["url": printable, "scheme": scheme])
        }
    }

    deinit {
        Curl.urlCleanup(handle)
    }

    /// 127.0.0.0/8, ::1 (curl gives IPv6 hosts in brackets) or the name `localhost`.
    static func isLoopback(_ host: String) -> Bool {
        if ASCIILowercase.string(host) == "localhost" { return true }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var address = in6_addr()
            let inner = String(host.dropFirst().dropLast())
            guard inet_pton(AF_INET6, inner, &address) == 1 else { return false }
            let bytes = withUnsafeBytes(of: &address) { Array($0) }
            return bytes == [UInt8](repeating: 0, count: 15) + [1]
        }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        // s_addr is in network byte order: its first byte in memory is the first octet.
        return withUnsafeBytes(of: &address) { $0.first } == 127
    }
}
