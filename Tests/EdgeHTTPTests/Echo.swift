import Foundation
import XCTest
@testable import EdgeHTTP

/// What `/echo` on the test server answers.
struct Echo: Decodable {
    let method: String
    let path: String
    let headers: [[String]]
    let body: String
    let body_length: Int
    let body_sha256: String
    let client_port: Int
    let connection_requests: Int

    init(_ response: HTTPResponse) throws {
        self = try JSONDecoder().decode(Echo.self, from: Data(response.body))
    }

    /// Every value the server received for `name` (case-insensitive).
    func values(_ name: String) -> [String] {
        headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
    }
}

/// Sends `request` and returns the error it must fail with (nil and a test failure if it succeeds).
func failure(of request: HTTPRequest, on transport: CurlTransport,
             file: StaticString = #filePath, line: UInt = #line) async -> TransportError? {
    do {
        let response = try await transport.send(request)
        XCTFail("expected a transport error, got \(response)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Seconds since `start` (monotonic).
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// `send` as a `Result`, so a `Task` can carry the typed error (a Task's own failure is `any Error`).
func result(of request: HTTPRequest, on transport: CurlTransport) async -> Result<HTTPResponse, TransportError> {
    do {
        return .success(try await transport.send(request))
    } catch {
        return .failure(error)
    }
}
