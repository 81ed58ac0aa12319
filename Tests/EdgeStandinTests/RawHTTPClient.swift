import Foundation
import Glibc

/// A tiny HTTP/1.1 client over a plain socket, one connection per request (`Connection: close`),
/// reading until the server closes. Raw on purpose: the fault tests must see what a library client
/// hides (no answer at all, a connection reset, a second answer after the first).
/// The blocking socket calls run on a Dispatch queue, off Swift's cooperative pool, so the server's
/// tasks in the same process are never starved by the test waiting on them.
enum RawHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Everything the server wrote on the connection, parsed.
    struct Exchange {
        var bytes: [UInt8]
        var responses: [RawHTTPResponse]
        /// The connection ended in a reset rather than an orderly close.
        var reset: Bool
        var timedOut: Bool

        /// The first answer; throws when there was none (refuse, drop).
        func response() throws -> RawHTTPResponse {
            guard let first = responses.first else {
                throw Failure(description: "no answer (\(bytes.count) bytes, reset: \(reset), timed out: \(timedOut))")
            }
            return first
        }
    }

    static func exchange(port: Int, method: String, path: String, headers: [(String, String)], body: [UInt8], timeout: Double = 10) async throws -> Exchange {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        let request = Array(text.utf8) + body
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, request: request, timeout: timeout) })
            }
        }
    }

    private static func blockingExchange(port: Int, request: [UInt8], timeout: Double) throws -> Exchange {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        defer { close(fd) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: errno \(errno)") }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // A server that closes at once (refuse) may reset the connection under our writes.
            if n <= 0 { break }
            sent += n
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var reset = false
        var timedOut = false
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                bytes += buffer[0..<n]
            } else if n == 0 {
                break
            } else {
                if errno == EAGAIN || errno == EWOULDBLOCK { timedOut = true } else { reset = true }
                break
            }
        }
        return Exchange(bytes: bytes, responses: RawHTTPResponse.parseAll(bytes), reset: reset, timedOut: timedOut)
    }
}
