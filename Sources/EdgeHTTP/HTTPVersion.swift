/// The HTTP version a response was received with (CURLINFO_HTTP_VERSION).
public enum HTTPVersion: String, Sendable, Hashable {
    case http1_0 = "1.0"
    case http1_1 = "1.1"
    case http2 = "2"
}
