/// Where the agent serves /metrics (AGT-7): a loopback TCP port or a unix socket.
///
/// Decision: loopback only. Metrics name cameras, queue depths and failure reasons; a scraper
/// on another host reaches them through the node's own exporter or an SSH tunnel.
public enum MetricsAddress: Sendable, Equatable {
    case tcp(host: String, port: Int)
    case unix(path: String)

    public init?(_ text: String) {
        if text.hasPrefix("unix:/") {
            let path = String(text.dropFirst("unix:".count))
            guard path.utf8.count < 108, !path.utf8.contains(0) else { return nil }  // sun_path
            self = .unix(path: path)
            return
        }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        let host = String(text[..<colon])
        switch host {
        case "127.0.0.1", "localhost": self = .tcp(host: "127.0.0.1", port: port)
        case "[::1]": self = .tcp(host: "::1", port: port)
        default: return nil
        }
    }
}
