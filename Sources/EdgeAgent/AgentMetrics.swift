import CoreMetrics
import EdgeCore
import EdgePush
import EdgeStore
import EdgeSync

import Prometheus

/// The agent's metrics (AGT-7), written through swift-metrics' API into one Prometheus registry
/// per agent and rendered in the text exposition format for /metrics.
///
/// Decision: the factory is passed to each metric rather than bootstrapped into the global
/// `MetricsSystem`, so every agent (and every test building one) has its own registry and a
/// library's metrics cannot leak into the station's.
public final class AgentMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Decode and frame-to-event times are milliseconds, not the seconds an HTTP server sees.
        let fine: [Duration] = [1, 2, 4, 8, 16, 33, 66, 100, 250, 500, 1000, 5000].map { .milliseconds($0) }
        factory.durationHistogramBuckets = ["edge_decode_seconds": fine, "edge_frame_to_event_seconds": fine]
        self.factory = factory
        // The Prometheus idiom for what runs where (AGT-9): a gauge at 1 whose labels say it, so a
        // fleet's dashboards join on it (`edge_build_info{version="0.4.0",commit="35bdbe3a1b2c"} 1`).
        let build = BuildInfo.current
        CoreMetrics.Gauge(label: "edge_build_info", dimensions: [("version", build.version), ("commit", build.commit)], factory: factory).record(1)
    }

    /// The exposition text.
    public func render() -> [UInt8] {
        // Read when scraped: SQLite's own memory, so RSS growth can be told apart from its page
        // caches filling as the database grows (issue #30 item 5).
        CoreMetrics.Gauge(label: "edge_sqlite_memory_bytes", factory: factory).record(EdgeDatabase.memoryInUse())
        // And malloc's: what is allocated (a leak grows it) and what is freed but kept (fragmentation).
        let heap = ProcessHeap.current()
        CoreMetrics.Gauge(label: "edge_malloc_in_use_bytes", factory: factory).record(heap.inUse)
        CoreMetrics.Gauge(label: "edge_malloc_free_retained_bytes", factory: factory).record(heap.retainedFree)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        registry.emit(into: &buffer)
        return buffer
    }

    /// The handles one camera service updates on every frame, made once.
    public func camera(_ name: String) -> CameraMetrics {
        let dimensions = [("camera", name)]
        return CameraMetrics(frames: CoreMetrics.Counter(label: "edge_frames_total", dimensions: dimensions, factory: factory),
                             decodeTime: CoreMetrics.Timer(label: "edge_decode_seconds", dimensions: dimensions, factory: factory),
                             frameToEvent: CoreMetrics.Timer(label: "edge_frame_to_event_seconds", dimensions: dimensions, factory: factory),
                             up: CoreMetrics.Gauge(label: "edge_camera_up", dimensions: dimensions, factory: factory),
                             factory: factory, camera: name)
    }

    /// One drain of the outbox: each settled entry by its answer class.
    public func recordDrain(_ report: DrainReport) {
        for (answer, count) in [("sent", report.sent - report.duplicates), ("duplicate", report.duplicates), ("retry", report.retried),
                                ("conflict", report.conflicts), ("dead_letter", report.deadLettered), ("held", report.held)] where count > 0 {
            CoreMetrics.Counter(label: "edge_sync_sends_total", dimensions: [("answer", answer)], factory: factory).increment(by: count)
        }
    }

    public func recordPull(changes: Int, failed: Bool) {
        CoreMetrics.Counter(label: "edge_sync_pulls_total", dimensions: [("result", failed ? "failed" : "ok")], factory: factory).increment()
        if changes > 0 { CoreMetrics.Counter(label: "edge_sync_pulled_changes_total", factory: factory).increment(by: changes) }
    }

    /// `heldCredentials`: holds that are faults (an operator must act); `waitingCredentials`:
    /// expected waits such as a Study Start approval (ENR-13), apart so an alert on held
    /// credentials does not fire for a patient waiting for approval.
    public func setOutbox(depth: Int, oldestAge: Double?, heldCredentials: Int, waitingCredentials: Int = 0) {
        CoreMetrics.Gauge(label: "edge_outbox_depth", factory: factory).record(depth)
        CoreMetrics.Gauge(label: "edge_outbox_oldest_age_seconds", factory: factory).record(oldestAge ?? 0)
        CoreMetrics.Gauge(label: "edge_outbox_held_credentials", factory: factory).record(heldCredentials)
        CoreMetrics.Gauge(label: "edge_outbox_waiting_credentials", factory: factory).record(waitingCredentials)
    }

    /// One batch of the push relay: sends, failures, and deferrals by reason.
    public func recordPush(_ report: PushSendReport) {
        if report.sent > 0 { CoreMetrics.Counter(label: "edge_push_sends_total", dimensions: [("result", "sent")], factory: factory).increment(by: report.sent) }
        if report.failed > 0 { CoreMetrics.Counter(label: "edge_push_sends_total", dimensions: [("result", "failed")], factory: factory).increment(by: report.failed) }
        for (reason, count) in report.deferredReasons where count > 0 {
            CoreMetrics.Counter(label: "edge_push_failures_total", dimensions: [("reason", reason)], factory: factory).increment(by: count)
        }
    }

    /// What a pulled page gave the relay (PSH-1, PSH-5, PSH-11): notifications, badge events,
    /// the app's receipts by status, and refused changes.
    public func recordPushIntake(_ report: PushIntakeReport) {
        let counts = [("notification", report.notifications), ("badge_event", report.badgeEvents), ("refused", report.refused.count)]
        for (kind, count) in counts where count > 0 {
            CoreMetrics.Counter(label: "edge_push_intake_total", dimensions: [("kind", kind)], factory: factory).increment(by: count)
        }
        for (status, count) in report.receipts where count > 0 {
            CoreMetrics.Counter(label: "edge_push_receipts_total", dimensions: [("status", status.lowercased())], factory: factory).increment(by: count)
        }
    }

    /// Each place the station writes to (issue #30 item 1), as node_exporter tells a filesystem:
    /// `edge_storage_free_bytes{holds="database",path="/var/lib/edge"}`, its size, whether it is
    /// read-only, and `edge_storage_failed` (1 while `edge status` says failed: full, read-only or
    /// a write there failing). Labelled by what the place holds and its directory.
    public func setStorage(_ report: StorageReport) {
        for place in report.places {
            let dimensions = [("holds", place.holds), ("path", place.directory)]
            if let free = place.freeBytes {
                CoreMetrics.Gauge(label: "edge_storage_free_bytes", dimensions: dimensions, factory: factory).record(Int64(clamping: free))
            }
            if let size = place.sizeBytes {
                CoreMetrics.Gauge(label: "edge_storage_size_bytes", dimensions: dimensions, factory: factory).record(Int64(clamping: size))
            }
            if let readOnly = place.readOnly {
                CoreMetrics.Gauge(label: "edge_storage_read_only", dimensions: dimensions, factory: factory).record(readOnly ? 1 : 0)
            }
            CoreMetrics.Gauge(label: "edge_storage_failed", dimensions: dimensions, factory: factory).record(place.state == .failed ? 1 : 0)
        }
    }

    /// A write that failed for want of a working disk, by place and cause (full, read-only ...).
    public func recordStorageFailure(holds: String, cause: String) {
        CoreMetrics.Counter(label: "edge_storage_write_failures_total", dimensions: [("holds", holds), ("cause", cause)], factory: factory).increment()
    }

    public func setPush(held: Int, queued: Int) {
        CoreMetrics.Gauge(label: "edge_push_held", factory: factory).record(held)
        CoreMetrics.Gauge(label: "edge_push_queued", factory: factory).record(queued)
    }
}

/// The per-camera handles (AGT-7): frames, decode time, frame-to-event latency, up/down, events.
public struct CameraMetrics: Sendable {
    let frames: CoreMetrics.Counter
    let decodeTime: CoreMetrics.Timer
    let frameToEvent: CoreMetrics.Timer
    let up: CoreMetrics.Gauge
    let factory: PrometheusMetricsFactory
    let camera: String

    func event(className: String, action: String) {
        CoreMetrics.Counter(label: "edge_scan_events_total", dimensions: [("camera", camera), ("class", className), ("action", action)],
                factory: factory).increment()
    }
}
