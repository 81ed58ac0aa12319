import EdgeContract
import EdgeStandin
import Foundation

/// Calls a running stand-in the way the agent will: JSON bodies, the SYN-6 headers, a bearer token.
struct StandinClient {
    var port: Int
    var token: String?
    var deviceID = "5b0e8c1d-2f4a-4e6b-8d3c-7a9f1e2d4c6b"

    func headers(idempotencyKey: String? = nil, extra: [(String, String)] = []) -> [(String, String)] {
        var headers: [(String, String)] = [
            (SyncHeaderName.contentType, SyncHeaderName.jsonContentType),
            (SyncHeaderName.deviceID, deviceID),
            (SyncHeaderName.appVersion, "0.1.0-test"),
            (SyncHeaderName.platform, SyncHeaderName.platformValue),
            (SyncHeaderName.osVersion, "Debian GNU/Linux 12"),
            (SyncHeaderName.timezone, "Europe/Berlin"),
        ]
        if let token { headers.append((SyncHeaderName.authorization, "Bearer \(token)")) }
        if let idempotencyKey { headers.append((SyncHeaderName.idempotencyKey, idempotencyKey)) }
        return headers + extra
    }

    func post<T: Encodable>(_ path: String, _ body: T, idempotencyKey: String? = nil, timeout: Double = 10) async throws -> RawHTTPClient.Exchange {
        try await send("POST", path, body: try ContractCoding.encode(body), idempotencyKey: idempotencyKey, timeout: timeout)
    }

    func get(_ path: String, timeout: Double = 10) async throws -> RawHTTPClient.Exchange {
        try await send("GET", path, body: [], timeout: timeout)
    }

    func send(_ method: String, _ path: String, body: [UInt8], idempotencyKey: String? = nil, timeout: Double = 10) async throws -> RawHTTPClient.Exchange {
        try await RawHTTPClient.exchange(
            port: port, method: method, path: path, headers: headers(idempotencyKey: idempotencyKey), body: body, timeout: timeout)
    }

    /// A sync push entry with a fresh key.
    static func pushEntry(sequence: Int64, stream: String = "scans") -> SyncPushRequest {
        SyncPushRequest(
            deviceUUID: "5b0e8c1d-2f4a-4e6b-8d3c-7a9f1e2d4c6b", stream: stream, kind: "SCAN_EVENT", sequence: sequence,
            createdAt: "2026-11-20T09:14:03.250+01:00", payload: .object(["text": .string("MAT-ST-4471")]))
    }
}
