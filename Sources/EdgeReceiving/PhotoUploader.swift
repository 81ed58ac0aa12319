import EdgeCore
import FoundationEssentials

/// Uploads photo evidence by hash (RCV-2) and purges what is done. A lost upload is retried with
/// the outbox's backoff (base 1 s, cap 60 s, full jitter); a duplicate is the server's no-op (200).
/// Decision: a photo the backend refuses (4xx) is kept and retried hourly rather than dropped:
/// it is evidence, and the refusal is shown as its last error.
public struct PhotoUploader: Sendable {
    public static let refusedRetrySeconds: Double = 3600

    public let store: PhotoStore
    public let client: ReceivingClient
    public let backoff: BackoffPolicy

    public init(store: PhotoStore, client: ReceivingClient, backoff: BackoffPolicy = .standard) {
        self.store = store
        self.client = client
        self.backoff = backoff
    }

    public struct Report: Sendable, Hashable {
        public var uploaded = 0
        /// Of `uploaded`, how many the server already had.
        public var duplicates = 0
        public var failed = 0
        public var lastError: String?
    }

    /// Uploads every due photo once; failures are rescheduled.
    public func uploadDue(now: Double) async -> Report {
        var report = Report()
        guard let due = try? store.due(now: now) else { return report }
        for photo in due {
            do throws(ReceivingError) {
                let bytes = try store.read(photo.sha256)
                let (_, duplicate) = try await client.uploadPhoto(sha256: photo.sha256, jpeg: bytes)
                try store.markUploaded(photo.sha256, now: Date().timeIntervalSince1970)
                report.uploaded += 1
                if duplicate { report.duplicates += 1 }
            } catch {
                let failures = (try? store.attempts(photo.sha256)) ?? 0
                let delay = error.code == .notAvailableOffline
                    ? backoff.delay(failures: failures, unit: Double.random(in: 0..<1))
                    : Self.refusedRetrySeconds
                try? store.markFailed(photo.sha256, error: error.message, nextAttemptAt: now + delay)
                report.failed += 1
                report.lastError = error.message
            }
        }
        return report
    }
}
