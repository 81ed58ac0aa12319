/// Which plain `http://` URLs the transport accepts: those to a loopback host, by the same
/// definition `RequestTarget` applies to curl's parse before any traffic. Configuration checks
/// (`sync.base_url`, `push.endpoint`) use it so a bad address is refused when it is configured,
/// not at the first request, and both sections agree with the transport.
public enum PlainHTTP {
    /// `url` is `http://` (any case) to 127.0.0.0/8, `[::1]` or `localhost`, with an optional
    /// port and path.
    public static func isLoopback(_ url: String) -> Bool {
        let lower = ASCIILowercase.string(url)
        guard lower.hasPrefix("http://") else { return false }
        let rest = lower.dropFirst("http://".count)
        let host: Substring
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = rest[...close]
        } else {
            host = rest.prefix { $0 != "/" && $0 != ":" }
        }
        let after = rest[host.endIndex...]
        guard after.isEmpty || after.hasPrefix(":") || after.hasPrefix("/") else { return false }
        return RequestTarget.isLoopback(String(host))
    }
}
