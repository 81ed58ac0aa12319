import EdgeAgent
import EdgeStore
import EdgeSync
import FoundationEssentials

/// Sending a just-queued confirmation from a command (`edge receive --confirm`): the photos are
/// uploaded, then the outbox is drained by this process when no other one is sending from the
/// database; when the agent is (it holds the sender lock), this waits up to `wait` seconds for
/// the agent to settle the entry. Either way the outbox is the only way out, so the GRN is
/// applied once however often this is tried.
public enum GRNDelivery {
    public struct Result: Sendable {
        public let outcome: GRNOutcome
        public let photos: PhotoUploader.Report?
        /// True when a running agent was left to send it.
        public let sentByAgent: Bool
    }

    /// `router` is the caller's, with whatever else must happen when the GRN is applied (the
    /// push relay's DELIVERY_UPDATE, RCV-7); the ledger's route is added here. `kinds`: the
    /// station's declared outbox kinds (`StationSchema.outboxKinds`): the drain sends every
    /// queued entry, not only this GRN.
    public static func deliver(_ confirmation: GRNConfirmation, parts: ReceivingParts, sync: SyncSettings?, router: ChangeRouter,
                               kinds: [OutboxKind], wait: Double) async throws(ReceivingError) -> Result {
        let dock = parts.dock
        var photoReport: PhotoUploader.Report?
        if let client = dock.client, !confirmation.photos.isEmpty {
            photoReport = await PhotoUploader(store: dock.photos, client: client).uploadDue(now: dock.now)
        }
        guard let sync, let transport = parts.transport, let identity = parts.identity, let tokens = parts.tokens else {
            return Result(outcome: try dock.outcome(confirmation.idempotencyKey), photos: photoReport, sentByAgent: false)
        }
        let lock: SenderLock
        do {
            lock = try SenderLock(databasePath: dock.outbox.database.path)
        } catch where error.code == .senderBusy {
            return Result(outcome: try await awaitOutcome(confirmation.idempotencyKey, dock: dock, wait: wait), photos: photoReport, sentByAgent: true)
        } catch {
            throw ReceivingError(.storeFailed, error.message)
        }
        ReceivingRoutes.register(on: router, dock: dock)
        let sender = StationParts.sender(outbox: dock.outbox, transport: transport, tokens: tokens, settings: sync, identity: identity, router: router,
                                         kinds: kinds)
        let report = await sender.drain(manual: false)
        withExtendedLifetime(lock) {}
        if case .storeFailed(let message) = report.outcome {
            throw ReceivingError(.storeFailed, "The outbox could not be sent: \(message)")
        }
        return Result(outcome: try dock.outcome(confirmation.idempotencyKey), photos: photoReport, sentByAgent: false)
    }

    /// The confirmation's outcome once it is no longer queued, or as it stands after `wait`
    /// seconds: a running agent's sender settles it (the kiosk, and a command while the agent runs).
    public static func awaitOutcome(_ key: String, dock: ReceivingDock, wait: Double) async throws(ReceivingError) -> GRNOutcome {
        let deadline = MonotonicClock.seconds() + wait
        var outcome = try dock.outcome(key)
        while case .queued = outcome, MonotonicClock.seconds() < deadline {
            try? await Task.sleep(for: .milliseconds(200))
            outcome = try dock.outcome(key)
        }
        return outcome
    }
}
