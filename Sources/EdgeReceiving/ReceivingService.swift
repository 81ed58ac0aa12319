import EdgeContract
import FoundationEssentials
import Logging
import ServiceLifecycle

/// The dock's long-running part in the agent: looks up what dock cameras read (PO labels, vendor
/// cards) for the kiosk, uploads photo evidence as it becomes due, keeps the ledger in step with
/// the conflict log and dead letters, and purges photos of applied GRNs in bounded batches.
struct ReceivingService: Service {
    /// How often camera reads are looked for: quick enough to feel immediate at the kiosk.
    static let scanPoll: Duration = .milliseconds(250)
    /// Uploads, reconciliation and purging every this many scan polls (about 2 s).
    static let housekeepingEvery = 8

    let parts: ReceivingParts
    let feed: KioskFeed
    /// Scan events after this id are looked up (the newest when the capability registered).
    let firstScanAfter: Int64
    let logger: Logger

    func run() async throws {
        defer {
            feed.finish()
            parts.transport?.shutdown()
        }
        let dock = parts.dock
        let watcher = DockScanWatcher(database: dock.outbox.database)
        var lastID = firstScanAfter
        var tick = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if let scans = try? watcher.scans(after: lastID) {
                for scan in scans {
                    lastID = scan.id
                    feed.publish(await lookup(scan, dock: dock))
                }
            }
            if tick % Self.housekeepingEvery == 0 { await housekeeping(dock) }
            tick += 1
            try? await Task.sleep(for: Self.scanPoll)
        }
    }

    private func lookup(_ scan: DockScanWatcher.Scan, dock: ReceivingDock) async -> KioskLookup {
        let lookup = await KioskLookup.lookUp(scan.text, className: scan.className, camera: scan.camera, seenAt: scan.capturedAt, dock: dock)
        if case .refused(let code, _) = lookup.content {
            logger.notice("dock lookup refused", metadata: ["event": "receiving.lookup_refused", "camera": "\(scan.camera)", "code": "\(code.rawValue)"])
        }
        return lookup
    }

    private func housekeeping(_ dock: ReceivingDock) async {
        let now = dock.now
        if let client = dock.client {
            let report = await PhotoUploader(store: dock.photos, client: client).uploadDue(now: now)
            if report.uploaded > 0 || report.failed > 0 {
                logger.info("photos uploaded", metadata: ["event": "receiving.photos", "uploaded": "\(report.uploaded)",
                                                          "duplicates": "\(report.duplicates)", "failed": "\(report.failed)"])
            }
        }
        do throws(ReceivingError) {
            try dock.ledger.reconcile(now: now)
            let purged = try dock.photos.purge(now: now, retention: dock.settings?.photoRetention ?? ReceivingSettings.defaultPhotoRetention)
            if !purged.isEmpty {
                logger.info("photos purged", metadata: ["event": "receiving.photos_purged", "count": "\(purged.count)"])
            }
        } catch {
            logger.warning("receiving housekeeping failed", metadata: ["event": "receiving.housekeeping_failed", "reason": "\(error.message)"])
        }
    }
}
