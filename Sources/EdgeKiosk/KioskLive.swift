import FoundationEssentials

/// One message of the live view (UI-5, `GET /api/v1/events`), typed: each case is what the page
/// renders for that event, encoded once per message (no JSON built from strings).
enum KioskLive: Sendable {
    /// First on every connection: the page's CSRF token and when the station started, so a page
    /// left open across a restart picks up the new token and catches up.
    case hello(Hello)
    /// A recorded scan event, with its database id as the SSE id (`Last-Event-ID` resumes after it).
    case scan(KioskDocuments.Scan)
    /// The dock's current lookup changed.
    case lookup(Lookup)
    /// An enrollment changed.
    case enrollment(EnrollmentRef)
    /// Cameras or the queue changed.
    case status(Status)
    /// A linking code held to a clinic camera: masked, or why it cannot be used.
    case linkingCode(LinkingCodeRead)

    struct Hello: Encodable, Sendable {
        let csrfToken: String
        let startedAt: Double
        enum CodingKeys: String, CodingKey {
            case csrfToken = "csrf_token"
            case startedAt = "started_at"
        }
    }

    struct Lookup: Encodable, Sendable {
        let kind: String
        let seenAt: Double
        enum CodingKeys: String, CodingKey {
            case kind
            case seenAt = "seen_at"
        }
    }

    struct EnrollmentRef: Encodable, Sendable {
        let id: Int64
    }

    struct Status: Encodable, Sendable {
        struct Camera: Encodable, Sendable {
            let name: String
            let up: Bool
            let detail: String?
        }
        let cameras: [Camera]
        let queueDepth: Int?
        enum CodingKeys: String, CodingKey {
            case cameras
            case queueDepth = "queue_depth"
        }
    }

    struct LinkingCodeRead: Encodable, Sendable {
        let camera: String
        let masked: String?
        let message: String?
    }

    /// The event's name on the wire (the page's `addEventListener`).
    var name: String {
        switch self {
        case .hello: "hello"
        case .scan: "scan"
        case .lookup: "lookup"
        case .enrollment: "enrollment"
        case .status: "status"
        case .linkingCode: "linking-code"
        }
    }

    /// The SSE frame: `id:` for scans, `event:`, one `data:` line (JSON has no raw newlines).
    func frame() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data: Data?
        var id: String?
        switch self {
        case .hello(let hello): data = try? encoder.encode(hello)
        case .scan(let scan):
            id = String(scan.id)
            data = try? encoder.encode(scan)
        case .lookup(let lookup): data = try? encoder.encode(lookup)
        case .enrollment(let enrollment): data = try? encoder.encode(enrollment)
        case .status(let status): data = try? encoder.encode(status)
        case .linkingCode(let read): data = try? encoder.encode(read)
        }
        // Encoding these plain values cannot fail; an empty object keeps the stream well formed.
        let body = data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(body)\n\n"
    }
}
