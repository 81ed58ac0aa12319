import EdgeAgent
import EdgeEnrollment
import EdgeReceiving
import FoundationEssentials

/// One message of the live view (UI-5, `GET /api/v1/events`), typed: each case is what the page
/// renders for that event, encoded once per message (no JSON built from strings).
///
/// Decision (issue #27): a message carries the finished display values of what it changes (a
/// scan's row, an enrollment's card, the station's status) and the page puts them into the
/// `<template>`s next to the server's own markup in the same mustache file, so an event costs no
/// request. The same value types are the templates' context when a page is served: one set of
/// values, one markup, two places it is filled. The dock's lookup is the exception: its order
/// form is re-read as one region (`GET /dock/regions/lookup`), not the whole page.
enum KioskLive: Sendable {
    /// First on every connection: the page's CSRF token and when the station started, so a page
    /// left open across a restart picks up the new token and catches up.
    case hello(Hello)
    /// A recorded scan event, with its database id as the SSE id (`Last-Event-ID` resumes after it).
    case scan(KioskDocuments.Scan)
    /// The dock's current lookup changed.
    case lookup(Lookup)
    /// An enrollment changed: its card as the clinic page shows it.
    case enrollment(Enrollment)
    /// Cameras, parts or the queue changed: what the status page and the dock's side panel show.
    case status(Status)
    /// A linking code held to a clinic camera: masked, or why it cannot be used.
    case linkingCode(LinkingCodeRead)
    /// A receipt in progress changed, or ended (RCV-8): every dock screen shows the same one.
    case receipt(KioskDocuments.ReceiptEvent)
    /// A dock read that counted, was refused, or waits for the operator's word (RCV-9).
    case notice(KioskDocuments.Notice)

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
        /// What the dock's "another label" notice names: the PO number, or the kind.
        let label: String
        enum CodingKeys: String, CodingKey {
            case kind, label
            case seenAt = "seen_at"
        }

        init(_ lookup: KioskLookup) {
            kind = lookup.content.kind
            seenAt = lookup.seenAt
            if case .order(let order) = lookup.content { label = KioskPages.shown(order.poNumber) } else { label = lookup.content.kind }
        }
    }

    /// One enrollment's card on the clinic page (#enrollments), display-ready (escaped text,
    /// checked colours). The page's context and the `enrollment` event's data.
    struct Enrollment: Encodable, Sendable {
        struct Step: Encodable, Sendable {
            let at: String
            let from: String
            let to: String
            let cause: String
        }
        struct Sponsor: Encodable, Sendable {
            let name: String
            let phone: String
            let email: String
            let primary: String
            let secondary: String
        }
        let id: Int64
        /// The card's heading id (its aria-labelledby).
        let titleID: String
        let state: String
        let stateText: String
        let maskedCode: String
        let canCancel: Bool
        let canReenroll: Bool
        let patientID: String?
        let explanation: String?
        let sponsor: Sponsor?
        let history: [Step]

        init(_ document: EnrollmentDocument) {
            id = document.id
            titleID = "enrollment-\(document.id)-title"
            state = document.state
            stateText = KioskPages.stateText(document.state)
            maskedCode = document.maskedCode
            canCancel = document.state == "LINKING_PENDING"
            canReenroll = document.state == "NOT_PARTICIPATING"
            patientID = document.patientID.map(KioskPages.shown)
            explanation = KioskPages.explanation(document.state)
            sponsor = document.sponsor.map {
                Sponsor(name: KioskPages.shown($0.name), phone: KioskPages.shown($0.phone), email: KioskPages.shown($0.email),
                        primary: KioskPages.color($0.colors.primary), secondary: KioskPages.color($0.colors.secondary))
            }
            history = document.history.reversed().map { Step(at: $0.at, from: $0.from, to: $0.to, cause: KioskPages.shown($0.cause)) }
        }
    }

    /// The station's status as the status page shows it (UI-4), and the dock's cameras and queue
    /// depth: display-ready text from `StationContext.status()`.
    struct Status: Encodable, Sendable {
        struct Camera: Encodable, Sendable {
            let name: String
            let device: String
            let up: Bool
            /// "up" or "down", as the lists say it.
            let state: String
            let detail: String?
            let frames: Int
            let events: Int
        }
        struct Queue: Encodable, Sendable {
            let depth: Int
            let oldest: String?
            let deadLetters: Int
            let conflicts: Int
            let paused: String?
        }
        struct Part: Encodable, Sendable {
            let name: String
            let state: String
            let reason: String?
        }
        /// A hold that is an expected wait (a Study Start approval, ENR-13): shown beside the
        /// queue, not under "Needs attention": not a fault, nothing for the operator to do.
        struct Wait: Encodable, Sendable {
            let credential: String
            let kind: String
            let waitingFor: String
        }
        let station: String
        let role: String
        let running: Bool
        let startedAt: String?
        /// The edge that runs, as `edge --version` says it (AGT-9).
        let version: String
        let cameras: [Camera]
        let queue: Queue?
        let waiting: [Wait]
        /// The dock's "waiting to be sent" (0 without a database yet).
        let queueDepth: Int
        let lastPush: String
        let lastPull: String
        let lastPullError: String?
        let vault: String
        /// The disks (issue #30 item 1): "ok", "degraded" or "failed", and the detail in words.
        let storageState: String
        let storage: String
        let parts: [Part]
        let missing: [String]

        init(_ status: StationStatus) {
            station = KioskPages.shown(status.station)
            role = status.role
            running = status.agent.running
            startedAt = status.agent.startedAt.map(KioskPages.time)
            version = KioskPages.shown((status.agent.edge ?? status.edge).description)
            cameras = status.cameras.map {
                Camera(name: KioskPages.shown($0.name), device: KioskPages.shown($0.device), up: $0.up, state: $0.up ? "up" : "down",
                       detail: $0.detail.map(KioskPages.shown), frames: $0.frames, events: $0.events)
            }
            queue = status.queue.map {
                Queue(depth: $0.depth, oldest: $0.oldestAgeSeconds.map(KioskPages.age), deadLetters: $0.deadLetters, conflicts: $0.conflicts,
                      paused: $0.paused.map(KioskPages.shown))
            }
            waiting = (status.queue?.holds ?? []).filter { !$0.fault }.map {
                Wait(credential: KioskPages.shown($0.credential), kind: KioskPages.shown($0.kind), waitingFor: KioskPages.shown($0.waitingFor))
            }
            queueDepth = status.queue?.depth ?? 0
            lastPush = status.queue?.lastPush.map(KioskPages.time) ?? "never"
            lastPull = status.queue?.lastPull.map(KioskPages.time) ?? "never"
            lastPullError = status.queue?.lastPullError.map(KioskPages.shown)
            vault = status.vault.backend.map { $0 + (status.vault.reason.map { " (\(KioskPages.shown($0)))" } ?? "") }
                ?? status.vault.error.map { "not available: " + KioskPages.shown($0) } ?? "not open"
            storageState = status.storage.state.rawValue
            storage = KioskPages.shown(status.storage.detail)
            parts = status.parts.map { Part(name: $0.name, state: $0.state, reason: $0.reason.map(KioskPages.shown)) }
            missing = status.missing.map(KioskPages.shown)
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
        case .receipt: "receipt"
        case .notice: "notice"
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
        case .receipt(let receipt): data = try? encoder.encode(receipt)
        case .notice(let notice): data = try? encoder.encode(notice)
        }
        // Encoding these plain values cannot fail; an empty object keeps the stream well formed.
        let body = data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return (id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(body)\n\n"
    }
}
