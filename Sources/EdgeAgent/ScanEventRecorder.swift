import EdgeCrypto
import EdgePayloads
import EdgeScanning
import EdgeStore
import FoundationEssentials

/// Turns a classified camera read into a durable scan event (AGT-4): the event row and, when
/// the class syncs, its outbox entry in one transaction, so a crash keeps both or neither and
/// the sender delivers each committed event exactly once (AGT-8).
public struct ScanEventRecorder: Sendable {
    /// The outbox kind of a scan event (models/openapi.json, SyncPushRequest.kind).
    public static let kind = "SCAN_EVENT"

    public let outbox: Outbox
    public let events: ScanEventLog
    /// Keys the payload hash; nil while the vault cannot give one (it may open after the start:
    /// until then linking codes are kept masked without a hash, and other codes are still
    /// matched by text).
    let hashKey: @Sendable () -> SecureBytes?

    public init(outbox: Outbox, hashKey: @escaping @Sendable () -> SecureBytes?) {
        self.outbox = outbox
        self.events = ScanEventLog(database: outbox.database)
        self.hashKey = hashKey
    }

    /// The event as recorded, with its ids; nil when the policy ignores the class.
    public func record(camera: String, result: ScanResult, classification: Classification, action: ScanEventPolicy.Action,
                       dequeuedAt: ContinuousClock.Instant, clock: ContinuousClock = ContinuousClock(),
                       wallClock: () -> Double = { Date().timeIntervalSince1970 }) throws(StoreError) -> ScanEvent? {
        guard action != .ignore else { return nil }
        let isLinkingCode = classification.className == BuiltInPayloadClass.linkingCode.rawValue
        let sinceFrame = clock.now - dequeuedAt
        let capturedAt = wallClock() - Self.seconds(sinceFrame)
        var event = ScanEvent(camera: camera, capturedAt: capturedAt, symbology: result.format.rawValue, className: classification.className,
                              valid: classification.valid, latencyMs: 0, payloadKey: payloadKey(result.bytes),
                              text: isLinkingCode ? nil : result.text, masked: isLinkingCode ? Self.mask(result.text) : result.text,
                              action: action.rawValue)
        do {
            try outbox.database.dbWriter.write { db in
                // Latency runs to the row being written inside the transaction; the commit's
                // fsync that follows is in the histogram the camera service records.
                event.latencyMs = Self.seconds(clock.now - dequeuedAt) * 1000
                let id = try events.insert(db, event)
                event.id = id
                if action == .sync {
                    let entry = try outbox.enqueue(db, stream: "scan:" + camera, kind: Self.kind, payload: try payload(event), now: wallClock())
                    try events.setOutboxID(db, event: id, outboxID: entry.id)
                    event.outboxID = entry.id
                }
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.wrapping(error, "record a scan event", path: outbox.database.path)
        }
        return event
    }

    /// The SCAN_EVENT payload: what the backend needs, never a linking code in clear.
    func payload(_ event: ScanEvent) throws -> [UInt8] {
        let body = ScanEventPayload(eventID: event.id ?? 0, camera: event.camera,
                                    capturedAt: LocalTimestamp.string(epochSeconds: event.capturedAt), symbology: event.symbology,
                                    className: event.className, valid: event.valid, latencyMs: (event.latencyMs * 100).rounded() / 100,
                                    text: event.text, payloadKey: event.payloadKey)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(body))
    }

    /// A keyed hash (HKDF-SHA256 over the payload's SHA-256, keyed by the station's hash key):
    /// equal codes match on this station, and a stolen database does not reveal short codes by
    /// brute force without the vault.
    func payloadKey(_ bytes: [UInt8]) -> String? {
        hashKey().flatMap { KeyedHash.hex(key: $0, salt: "edge scan event", digest: SHA256.hash(bytes)) }
    }

    /// A linking code as it may be printed (ENR-8): the sponsor prefix and one star per hidden
    /// character, so a coordinator sees which sponsor without seeing the code.
    public static func mask(_ code: String) -> String {
        let characters = Array(code.unicodeScalars.filter { $0 != "-" && $0 != " " })
        guard characters.count > 2 else { return String(repeating: "*", count: characters.count) }
        return String(String.UnicodeScalarView(characters.prefix(2))) + String(repeating: "*", count: characters.count - 2)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The body of a SCAN_EVENT outbox entry. The station's device_uuid is the envelope's
/// (SyncPushRequest), so it is not repeated here.
struct ScanEventPayload: Encodable {
    let eventID: Int64
    let camera: String
    let capturedAt: String
    let symbology: String
    let className: String
    let valid: Bool
    let latencyMs: Double
    let text: String?
    let payloadKey: String?

    enum CodingKeys: String, CodingKey {
        case camera, symbology, valid, text
        case eventID = "event_id"
        case capturedAt = "captured_at"
        case className = "class"
        case latencyMs = "latency_ms"
        case payloadKey = "payload_key"
    }
}
