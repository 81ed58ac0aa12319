import EdgeAgent
import EdgeCore
import EdgeEnrollment
import EdgeReceiving
import EdgeStore
import FoundationEssentials
import Hummingbird
import NIOCore

/// The live view (UI-5) as Server-Sent Events on `GET /api/v1/events` (`KioskLive` has the
/// messages): `hello` first on every connection, then `status` (and the dock's current `lookup`),
/// then `scan`, `lookup`, `enrollment`, `status` and `linking-code` as the station's facts are
/// committed.
///
/// The station's fact stream drives it (issue #27): the connection subscribes first, then, when
/// the browser reconnects with `Last-Event-ID` (or `?after=`), reads the scan events it missed
/// from the database once, then follows the stream, skipping what the catch-up already sent. The
/// database is never polled.
///
/// Decision: SSE rather than WebSocket: the screen only listens, EventSource reconnects and
/// resumes by itself, and it is plain HTTP through the same CSP and checks as every page.
struct KioskEvents: Sendable {
    let kiosk: Kiosk

    /// Scan events a reconnecting screen is sent from the database at most; older ones are in
    /// the page it reloads (the recent-scans list is 10 long).
    static let catchUpLimit = 200

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
            let facts = kiosk.context.facts.subscribe()
            let (id, stream, continuation) = kiosk.openStream()
            continuation.yield(.hello(KioskLive.Hello(csrfToken: kiosk.checks.csrfToken, startedAt: kiosk.startedAt)))
            let producer = Task(executorPreference: StationExecutor.shared) { await Self.follow(kiosk, facts: facts, after: lastSeen, into: continuation) }
            defer {
                producer.cancel()
                kiosk.closeStream(id)
            }
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            for await message in stream {
                try await writer.write(ByteBuffer(string: message.frame()))
            }
            try await writer.finish(nil)
        })
    }

    /// The missed scans (once, from the database), then the facts as they come.
    private static func follow(_ kiosk: Kiosk, facts: StationFacts.Subscription, after lastSeen: Int64?,
                               into continuation: AsyncStream<KioskLive>.Continuation) async {
        var last = lastSeen ?? 0
        // The status on every connection: a screen that reconnects shows the cameras and the
        // queue as they are now, not as they were when it lost the stream.
        continuation.yield(.status(kiosk.liveStatus()))
        // The dock's current lookup on every connection: one made between the page's render and
        // this subscription is shown (the page skips the one it already has, by `seen_at`).
        if kiosk.servesDock, let lookup = kiosk.feed?.latest {
            continuation.yield(.lookup(KioskLive.Lookup(lookup)))
        }
        if let lastSeen {
            let missed = (try? kiosk.context.events.events(after: lastSeen, limit: catchUpLimit)) ?? []
            for event in missed {
                guard let id = event.id else { continue }
                last = id
                continuation.yield(.scan(KioskDocuments.Scan(event)))
            }
        }
        for await fact in facts {
            switch fact {
            case let scan as ScanRecorded:
                guard let id = scan.event.id, id > last else { continue }
                last = id
                continuation.yield(.scan(KioskDocuments.Scan(scan.event)))
            case let lookup as KioskLookup where kiosk.servesDock:
                continuation.yield(.lookup(KioskLive.Lookup(lookup)))
            case let receipt as Receipt where kiosk.servesDock:
                continuation.yield(.receipt(KioskDocuments.ReceiptEvent(poNumber: receipt.poNumber, receipt: receipt, closed: nil)))
            case let closed as ReceiptClosed where kiosk.servesDock:
                continuation.yield(.receipt(KioskDocuments.ReceiptEvent(poNumber: closed.poNumber, receipt: nil, closed: closed.reason.rawValue)))
            case let notice as DockNotice where kiosk.servesDock:
                continuation.yield(.notice(KioskDocuments.Notice(notice)))
            case let change as EnrollmentChange where kiosk.servesClinic:
                continuation.yield(.enrollment(KioskLive.Enrollment(EnrollmentDocument(change.enrollment))))
            default:
                continue
            }
        }
    }
}
