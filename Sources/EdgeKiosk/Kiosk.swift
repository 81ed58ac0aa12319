import EdgeAgent
import EdgeCore
import EdgeCrypto
import EdgeEnrollment
import EdgeImaging
import EdgePayloads
import EdgeReceiving
import FoundationEssentials
import Synchronization

/// What the kiosk's pages and API reach (UI-1): the station's context and the capabilities the
/// station's role enables. It holds no rules of its own: every decision is the capability's
/// (Enrollments, ReceivingDock), and the screen shows what they answer.
public final class Kiosk: Sendable {
    let context: StationContext
    let settings: KioskSettings
    let checks: KioskGuard
    let receiving: ReceivingCapability?
    let enrollment: EnrollmentCapability?
    let startedAt: Double
    let photos = PendingPhotos()
    /// Lookups and portal calls a screen waits for; cancelled when the station stops.
    let backend = KioskBackendCalls()
    let pages: KioskPages
    private let streams = Locked<[Int: AsyncStream<KioskLive>.Continuation]>([:])
    /// The last linking code a camera read at the clinic, valid for `heldCodeLifetime` (UI-3:
    /// "scan a QR"). Only here, in memory: the page sees it masked, the database never in clear.
    private let heldCode = Locked<(code: LinkingCode, camera: String, at: Double)?>(nil)
    static let heldCodeLifetime: Double = 120
    private let nextStream = Atomic<Int>(0)

    init(context: StationContext, settings: KioskSettings, receiving: ReceivingCapability?, enrollment: EnrollmentCapability?) throws {
        self.context = context
        self.settings = settings
        self.receiving = receiving
        self.enrollment = enrollment
        let pinName = settings.pinSecret
        // Asked of the vault at each check: a PIN the operator changed is in force at once.
        checks = try KioskGuard(settings: settings, pin: { (try? context.vault?.secret(pinName)) ?? nil })
        startedAt = context.startedAt
        pages = try KioskPages()
    }

    var role: StationSettings.Role { context.configuration.station.role }
    var servesDock: Bool { receiving != nil && role != .clinic }
    var servesClinic: Bool { enrollment != nil && role != .dock }
    var feed: KioskFeed? { servesDock ? receiving?.feed : nil }
    var dock: ReceivingDock? { servesDock ? receiving?.dock : nil }
    var enrollments: Enrollments? { servesClinic ? enrollment?.enrollments.enrollments : nil }

    /// The first camera configured: the dock's photo camera unless the request names another.
    var firstCamera: String? { context.configuration.station.cameras.first?.name }

    /// The `status` event: built from the running station's status (live state and its open
    /// database) when cameras or the queue changed, and only while a screen is open.
    func liveStatus() -> KioskLive.Status { KioskLive.Status(context.status()) }

    // MARK: live streams

    /// Registers an event stream; `finishStreams` ends it when the agent stops, so a browser's
    /// open EventSource never holds the server's graceful shutdown.
    func openStream() -> (Int, AsyncStream<KioskLive>, AsyncStream<KioskLive>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: KioskLive.self, bufferingPolicy: .bufferingNewest(64))
        let id = nextStream.wrappingAdd(1, ordering: .relaxed).newValue
        streams.withLock { $0[id] = continuation }
        return (id, stream, continuation)
    }

    var hasStreams: Bool { streams.withLock { !$0.isEmpty } }

    /// Whether another live screen may connect: each holds a connection and a subscription.
    var acceptsStream: Bool { streams.withLock { $0.count < Self.maxStreams } }

    /// Decision: 16 live screens at once; the station's own display, a tablet or two, and room
    /// for reconnects whose old connection has not closed yet.
    public static let maxStreams = 16

    func closeStream(_ id: Int) {
        _ = streams.withLock { $0.removeValue(forKey: id) }
    }

    /// Sends `event` to every open live stream (events only the kiosk knows of).
    func broadcast(_ event: KioskLive) {
        for continuation in streams.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    /// A camera read at a clinic station: the linking code it carries (any SCN-6 carrier,
    /// `LinkingCode(carriedBy:)`: ENR-2 scanned normalisation, ENR-3 checks) is held for the
    /// coordinator to validate; the screen is told the masked code, or why it cannot be used.
    func cameraRead(_ read: ScanRecorded) {
        guard read.classification.className == BuiltInPayloadClass.linkingCode.rawValue, let enrollments else { return }
        let camera = KioskPages.shown(read.camera)
        do throws(LinkingCodeError) {
            let code = try LinkingCode(carriedBy: read.result.text, source: .scanned, symbology: Symbology(read.result.format),
                                       sponsors: enrollments.sponsors)
            heldCode.withLock { $0 = (code, read.camera, context.now()) }
            broadcast(.linkingCode(KioskLive.LinkingCodeRead(camera: camera, masked: code.description, message: nil)))
        } catch {
            broadcast(.linkingCode(KioskLive.LinkingCodeRead(camera: camera, masked: nil, message: error.message)))
        }
    }

    /// Follows the station's facts while the kiosk serves: camera reads at the clinic, the queue.
    /// `facts` is subscribed when the kiosk is made, before the cameras start.
    func follow(_ facts: StationFacts.Subscription) async {
        for await fact in facts {
            switch fact {
            case let read as ScanRecorded: cameraRead(read)
            case is QueueChanged, is CameraStateChanged, is StorageChanged:
                if hasStreams { broadcast(.status(liveStatus())) }
            default: continue
            }
        }
    }

    /// The held code, once: a second validation needs a second read.
    func takeHeldCode() -> LinkingCode? {
        let now = context.now()
        return heldCode.withLock { held in
            defer { held = nil }
            guard let current = held, now - current.at <= Self.heldCodeLifetime else { return nil }
            return current.code
        }
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
    private let photos = Locked<[Photo]>([])

    func add(_ photo: Photo) {
        photos.withLock { photos in
            photos.append(photo)
            if photos.count > Self.limit { photos.removeFirst(photos.count - Self.limit) }
        }
    }

    func photo(_ id: String) -> Photo? { photos.withLock { $0.first { $0.id == id } } }

    func remove(_ ids: [String]) { photos.withLock { $0.removeAll { ids.contains($0.id) } } }
}
