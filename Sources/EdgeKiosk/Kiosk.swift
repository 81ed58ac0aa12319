import EdgeAgent
import EdgeCore
import EdgeCrypto
import EdgeEnrollment
import EdgeImaging
import EdgePayloads
import EdgeReceiving
import FoundationEssentials
import Synchronization

/// What the kiosk's pages and API reach (UI-1): the running agent and the capabilities the
/// station's role enables. It holds no rules of its own: every decision is the capability's
/// (Enrollments, ReceivingDock), and the screen shows what they answer.
public final class Kiosk: Sendable {
    let agent: Agent
    let settings: KioskSettings
    let checks: KioskGuard
    let receiving: ReceivingCapability?
    let enrollment: EnrollmentCapability?
    let startedAt: Double
    let photos = PendingPhotos()
    let pages: KioskPages
    private let streams = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
    /// The last linking code a camera read at the clinic, valid for `heldCodeLifetime` (UI-3:
    /// "scan a QR"). Only here, in memory: the page sees it masked, the database never in clear.
    private let heldCode = Mutex<(code: LinkingCode, camera: String, at: Double)?>(nil)
    static let heldCodeLifetime: Double = 120
    private let nextStream = Atomic<Int>(0)

    init(agent: Agent, settings: KioskSettings, receiving: ReceivingCapability?, enrollment: EnrollmentCapability?) throws {
        self.agent = agent
        self.settings = settings
        self.receiving = receiving
        self.enrollment = enrollment
        let vault = agent.vault
        let pinName = settings.pinSecret
        checks = try KioskGuard(settings: settings, pin: { (try? vault?.secret(pinName)) ?? nil })
        startedAt = Date().timeIntervalSince1970
        pages = try KioskPages()
    }

    var role: StationSettings.Role { agent.configuration.station.role }
    var servesDock: Bool { receiving != nil && role != .clinic }
    var servesClinic: Bool { enrollment != nil && role != .dock }
    var feed: KioskFeed? { servesDock ? receiving?.feed : nil }
    var dock: ReceivingDock? { servesDock ? receiving?.dock.withLock({ $0 }) : nil }
    var enrollments: Enrollments? { servesClinic ? enrollment?.enrollments.enrollments : nil }

    /// The first camera configured: the dock's photo camera unless the request names another.
    var firstCamera: String? { agent.configuration.station.cameras.first?.name }

    /// Cameras up/down and the queue, for the `status` event (a small document every few seconds).
    func liveStatus() -> [UInt8] {
        struct Live: Encodable {
            struct Camera: Encodable {
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
        let snapshot = agent.state.current
        let cameras = snapshot.cameras.values.sorted { $0.name < $1.name }.map { Live.Camera(name: $0.name, up: $0.up, detail: $0.detail.map(KioskPages.shown)) }
        let depth = try? agent.outbox.status().depth
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Live(cameras: cameras, queueDepth: depth))).map(Array.init) ?? Array("{}".utf8)
    }

    // MARK: live streams

    /// Registers an event stream; `finishStreams` ends it when the agent stops, so a browser's
    /// open EventSource never holds the server's graceful shutdown.
    func openStream() -> (Int, AsyncStream<String>, AsyncStream<String>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let id = nextStream.wrappingAdd(1, ordering: .relaxed).newValue
        streams.withLock { $0[id] = continuation }
        return (id, stream, continuation)
    }

    /// Whether another live screen may connect: each stream polls the database.
    var acceptsStream: Bool { streams.withLock { $0.count < Self.maxStreams } }

    /// Decision: 16 live screens at once; the station's own display, a tablet or two, and room
    /// for reconnects whose old connection has not closed yet.
    public static let maxStreams = 16

    func closeStream(_ id: Int) {
        _ = streams.withLock { $0.removeValue(forKey: id) }
    }

    /// Sends `event` to every open live stream (events only the kiosk knows of).
    func broadcast(_ event: String) {
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// A camera read at a clinic station: a linking code is held for the coordinator to validate
    /// (ENR-2 scanned normalisation, ENR-3 checks); the screen is told the masked code, or why
    /// the code cannot be used.
    func cameraRead(_ read: CameraSupervisor.CameraRead) {
        guard read.classification.className == BuiltInPayloadClass.linkingCode.rawValue, let enrollments else { return }
        let camera = #"{"camera":"# + Self.jsonString(KioskPages.shown(read.camera))
        do throws(LinkingCodeError) {
            let code = try LinkingCode(parsing: read.result.text, source: .scanned, sponsors: enrollments.sponsors)
            heldCode.withLock { $0 = (code, read.camera, Date().timeIntervalSince1970) }
            broadcast("event: linking-code\ndata: \(camera),\"masked\":\(Self.jsonString(code.description))}\n\n")
        } catch {
            broadcast("event: linking-code\ndata: \(camera),\"message\":\(Self.jsonString(error.message))}\n\n")
        }
    }

    /// The held code, once: a second validation needs a second read.
    func takeHeldCode() -> LinkingCode? {
        let now = Date().timeIntervalSince1970
        return heldCode.withLock { held in
            defer { held = nil }
            guard let current = held, now - current.at <= Self.heldCodeLifetime else { return nil }
            return current.code
        }
    }

    static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        return (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    func finishStreams() {
        let all = streams.withLock { streams in defer { streams = [:] }; return Array(streams.values) }
        for continuation in all { continuation.finish() }
    }
}

/// Photos taken at the kiosk and not yet confirmed with a GRN (UI-2: preview, retake): in memory
/// only, at most `limit`, the oldest dropped first. A confirmed GRN writes its photos to the
/// PhotoStore; what is never confirmed is gone with the process.
final class PendingPhotos: Sendable {
    struct Photo: Sendable {
        let id: String
        let camera: String
        let image: GrayImage
        let jpeg: [UInt8]
        let takenAt: Double
    }

    static let limit = ReceivingDock.maxPhotos
    private let photos = Mutex<[Photo]>([])

    func add(_ photo: Photo) {
        photos.withLock { photos in
            photos.append(photo)
            if photos.count > Self.limit { photos.removeFirst(photos.count - Self.limit) }
        }
    }

    func photo(_ id: String) -> Photo? { photos.withLock { $0.first { $0.id == id } } }

    func remove(_ ids: [String]) { photos.withLock { $0.removeAll { ids.contains($0.id) } } }
}
