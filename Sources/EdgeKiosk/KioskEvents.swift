import EdgeAgent
import EdgeEnrollment
import EdgeReceiving
import EdgeStore
import FoundationEssentials
import Hummingbird
import NIOCore

/// The live view (UI-5) as Server-Sent Events on `GET /api/v1/events`:
/// - `hello` first on every connection: the page's CSRF token and when the agent started, so a
///   page left open across an agent restart picks up the new token and refreshes itself;
/// - `scan` for every recorded scan event, with the database id as the SSE id, so the browser's
///   automatic reconnect (`Last-Event-ID`) resumes after the last one it saw, across restarts;
/// - `lookup` when the dock's current lookup changes, `enrollment` when an enrollment changes,
///   `status` every few seconds (cameras, queue).
///
/// Decision: SSE rather than WebSocket: the screen only listens, EventSource reconnects and
/// resumes by itself, and it is plain HTTP through the same CSP and checks as every page.
struct KioskEvents: Sendable {
    let kiosk: Kiosk

    static let scanPoll: Duration = .milliseconds(250)
    static let statusEvery: Duration = .seconds(5)

    func response(_ request: Request) throws -> Response {
        let lastSeen = request.headers[KioskHeader.lastEventID].flatMap { Int64($0) }
            ?? request.uri.queryParameters.get("after").flatMap { Int64($0) }
        let kiosk = self.kiosk
        guard kiosk.acceptsStream else {
            throw KioskError(.unavailable, "Too many live screens are open (at most \(Kiosk.maxStreams)); close one and reload.", status: .serviceUnavailable)
        }
        var headers = KioskResponse.headers("text/event-stream")
        headers[KioskHeader.accelBuffering] = "no"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (id, stream, continuation) = kiosk.openStream()
            let hello = #"{"csrf_token":"\#(kiosk.checks.csrfToken)","started_at":\#(kiosk.startedAt)}"#
            continuation.yield("retry: 1000\nevent: hello\ndata: \(hello)\n\n")
            let producers = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await Self.scans(kiosk, after: lastSeen, into: continuation) }
                    group.addTask {
                        guard let feed = kiosk.feed else { return }
                        for await lookup in feed.updates() {
                            continuation.yield("event: lookup\ndata: {\"kind\":\"\(lookup.content.kind)\"}\n\n")
                        }
                    }
                    group.addTask {
                        guard let store = kiosk.enrollments?.store else { return }
                        for await change in store.changes() {
                            continuation.yield("event: enrollment\ndata: {\"id\":\(change.enrollment.id)}\n\n")
                        }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: Self.statusEvery)
                            continuation.yield("event: status\ndata: \(String(decoding: kiosk.liveStatus(), as: UTF8.self))\n\n")
                        }
                    }
                }
            }
            defer {
                producers.cancel()
                kiosk.closeStream(id)
            }
            for await text in stream {
                try await writer.write(ByteBuffer(string: text))
            }
            try await writer.finish(nil)
        })
    }

    /// New scan events, polled from the database the cameras write to (one source of truth, and
    /// ids that survive a restart).
    private static func scans(_ kiosk: Kiosk, after lastSeen: Int64?, into continuation: AsyncStream<String>.Continuation) async {
        var last = lastSeen ?? ((try? kiosk.agent.events.recent(limit: 1).first?.id) ?? nil) ?? 0
        while !Task.isCancelled {
            if let events = try? kiosk.agent.events.events(after: last, limit: 50) {
                for event in events {
                    guard let id = event.id else { continue }
                    last = id
                    continuation.yield("id: \(id)\nevent: scan\ndata: \(String(decoding: KioskDocuments.scan(event), as: UTF8.self))\n\n")
                }
            }
            try? await Task.sleep(for: scanPoll)
        }
    }
}
