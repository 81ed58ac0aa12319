import EdgeAgent
import EdgeContract
import EdgePayloads
import FoundationEssentials
import Logging
import ServiceLifecycle

/// The dock's long-running part in the agent: looks up what the cameras read (PO labels, vendor
/// cards, material and product labels) for the kiosk as each scan event is committed (the
/// station's fact stream, not the database), uploads photo evidence as it becomes due, keeps the
/// ledger in step with the conflict log and dead letters, and purges photos of applied GRNs in
/// bounded batches.
struct ReceivingService: Service {
    /// Uploads, reconciliation and purging this often.
    static let housekeepingInterval: Duration = .seconds(2)
    /// The classes the dock looks up; anything else a camera reads is not the dock's.
    static let lookedUp: Set<String> = [BuiltInPayloadClass.purchaseOrder.rawValue, BuiltInPayloadClass.vendor.rawValue,
                                        BuiltInPayloadClass.material.rawValue, BuiltInPayloadClass.product.rawValue]

    /// Holds the dock's parts (`parts`), built again when the vault opens late.
    let capability: ReceivingCapability
    let feed: KioskFeed
    /// Opened when the capability was given its context, before the cameras started.
    let facts: StationFacts.Subscription
    let logger: Logger
    /// `VaultOpened`: builds the dock again with its backend client.
    let reconnect: @Sendable () -> Void

    func run() async throws {
        defer { capability.parts?.close() }
        // Both loops end at graceful shutdown, and a lookup or upload in flight is cancelled then:
        // a lookup changes nothing, an upload is sent again at the next start (by its hash), and
        // a backend that never answers must not hold the shutdown for its timeout (issue #30
        // item 4). The ledger's, receipts' and photos' own transactions are not interrupted. Each
        // round takes the dock as it is now.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withGracefulShutdownHandler {
                    for await fact in facts {
                        if fact is VaultOpened {
                            reconnect()
                            continue
                        }
                        guard let scan = fact as? ScanRecorded, scan.event.valid, let text = scan.event.text,
                              Self.lookedUp.contains(scan.event.className), let dock = capability.dock else { continue }
                        await cancelWhenGracefulShutdown { await read(text, scan: scan, dock: dock) }
                        if Task.isShuttingDownGracefully { break }
                    }
                } onGracefulShutdown: {
                    facts.finish()
                }
            }
            group.addTask {
                while !Task.isShuttingDownGracefully && !Task.isCancelled {
                    if let dock = capability.dock { await cancelWhenGracefulShutdown { await housekeeping(dock) } }
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.housekeepingInterval) }
                }
            }
        }
    }

    /// A camera read: counted on the open order, or looked up (`DockScanner`).
    private func read(_ text: String, scan: ScanRecorded, dock: ReceivingDock) async {
        let outcome = await DockScanner(dock: dock, feed: feed).read(text, className: scan.event.className, source: scan.camera,
                                                                     seenAt: scan.event.capturedAt)
        switch outcome {
        case .lookup(let lookup):
            if case .refused(let code, _) = lookup.content {
                logger.notice("dock lookup refused", metadata: ["event": "receiving.lookup_refused", "camera": "\(scan.camera)", "code": "\(code.rawValue)"])
            }
        case .counted(let counted):
            logger.info("item counted", metadata: ["event": "receiving.counted", "camera": "\(scan.camera)", "po_number": "\(counted.receipt.poNumber)",
                                                   "line_no": "\(counted.lineNo)"])
        case .notice(let notice):
            logger.notice("dock read not counted", metadata: ["event": "receiving.not_counted", "camera": "\(scan.camera)", "kind": "\(notice.kind.rawValue)"])
        }
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
