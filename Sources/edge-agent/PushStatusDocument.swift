import EdgePush
import EdgeStore
import FoundationEssentials

/// `edge push status --json` (models/push-status.schema.json), and the time and JSON helpers the
/// push commands share.
struct PushStatusDocument: Encodable {
    let database: String
    let stationZone: String
    let configured: Bool
    let counts: [String: Int]
    let held: Int
    let nextRelease: String?
    let queuedDigests: Int
    let nextDigestAt: String?
    let users: Int
    let activeDevices: Int
    let retiredDevices: Int
    let badgeTotal: Int

    enum CodingKeys: String, CodingKey {
        case database, stationZone = "station_zone", configured, counts, held, nextRelease = "next_release",
             queuedDigests = "queued_digests", nextDigestAt = "next_digest_at", users, activeDevices = "active_devices",
             retiredDevices = "retired_devices", badgeTotal = "badge_total"
    }

    init(database: String, stationZone: String, configured: Bool, overview: PushOverview) {
        self.database = database
        self.stationZone = stationZone
        self.configured = configured
        counts = Dictionary(uniqueKeysWithValues: overview.counts.map { ($0.key.rawValue, $0.value) })
        held = overview.counts[.held] ?? 0
        nextRelease = overview.nextRelease.map(Self.time)
        queuedDigests = overview.queuedDigests
        nextDigestAt = overview.nextDigestAt.map(Self.time)
        users = overview.users
        activeDevices = overview.activeDevices
        retiredDevices = overview.retiredDevices
        badgeTotal = overview.badgeTotal
    }

    /// Local wall-clock time with offset, as the sync status shows times.
    static func time(_ seconds: Int64) -> String {
        LocalTimestamp.string(epochSeconds: Double(seconds))
    }

}
