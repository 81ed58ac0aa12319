import EdgeCore
import FoundationEssentials
import Logging
import ServiceLifecycle

/// Watches the disks the station writes to (issue #30 item 1, AGT-11): every `interval` it
/// measures each place (`StorageReport`), sets `edge_storage_*` in /metrics, tells screens when
/// the state changes (`StorageChanged`) and logs one line when a disk starts failing or runs low
/// and one when it is well again. Writers tell it of failures (`failed`) and of the first success
/// after one (`succeeded`); a failure is kept in the agent's state, so the status file and the
/// kiosk carry it, until it passes.
public final class StorageMonitor: Service, Sendable {
    public static let defaultInterval: Duration = .seconds(2)

    private let state: AgentState
    private let metrics: AgentMetrics
    private let facts: StationFacts
    private let logger: Logger
    private let now: @Sendable () -> Double
    private let interval: Duration
    private let places: Locked<[(holds: String, directory: String)]>
    /// What the last check logged and told: a change of it is logged and published once.
    private let last = Locked<(state: StorageReport.State, causes: [String])?>(nil)

    init(paths: StationPaths, state: AgentState, metrics: AgentMetrics, facts: StationFacts, logger: Logger,
         now: @escaping @Sendable () -> Double, interval: Duration = StorageMonitor.defaultInterval) {
        self.state = state
        self.metrics = metrics
        self.facts = facts
        self.logger = logger
        self.now = now
        self.interval = interval
        places = Locked(StorageReport.places(paths))
    }

    /// Adds a place a capability writes to (the dock's photos), measured like the station's own.
    public func watch(_ holds: String, directory: String) {
        places.withLock { places in
            places.removeAll { $0.holds == holds }
            places.append((holds, directory))
        }
        state.update { snapshot in
            var extra = snapshot.storagePlaces ?? [:]
            extra[holds] = directory
            snapshot.storagePlaces = extra
        }
    }

    /// A write to `holds` failed. Returns whether it was the disk's (`error`'s context names a
    /// `StorageProblem`); other failures are not this monitor's and are left to their writer.
    @discardableResult
    public func failed<Code>(_ holds: String, _ error: CodedError<Code>) -> Bool {
        guard let problem = StorageProblem(context: error.context) else { return false }
        metrics.recordStorageFailure(holds: holds, cause: problem.cause.rawValue)
        let time = now()
        var changed = false
        state.update { snapshot in
            var failures = snapshot.storageFailures ?? [:]
            let previous = failures[holds]
            guard previous?.cause != problem.cause || previous?.words != problem.words else { return }
            failures[holds] = StorageFailure(problem, message: error.message, since: previous?.since ?? time)
            snapshot.storageFailures = failures
            changed = true
        }
        if changed { _ = check() }
        return true
    }

    /// A write to `holds` succeeded: a failure recorded there has passed. Cheap when none was.
    public func succeeded(_ holds: String) {
        guard state.current.storageFailures?[holds] != nil else { return }
        state.update { snapshot in
            snapshot.storageFailures?[holds] = nil
            if snapshot.storageFailures?.isEmpty == true { snapshot.storageFailures = nil }
        }
        _ = check()
    }

    /// The disks now, with the failures that still stand.
    public var report: StorageReport {
        StorageReport.assess(places.withLock { $0 }, failures: state.current.storageFailures ?? [:])
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            _ = check()
            await Task.sleepUnlessShuttingDown(for: interval)
        }
    }

    /// Measures now: drops failures the disk no longer shows, updates the metrics, and logs and
    /// publishes a change of state or cause.
    @discardableResult
    func check() -> StorageReport {
        let places = self.places.withLock { $0 }
        let failures = state.current.storageFailures ?? [:]
        var report = StorageReport.assess(places, failures: failures)
        let passed = failures.keys.filter { holds in report.places.first { $0.holds == holds }?.lastError == nil }
        if !passed.isEmpty {
            state.update { snapshot in
                for holds in passed { snapshot.storageFailures?[holds] = nil }
                if snapshot.storageFailures?.isEmpty == true { snapshot.storageFailures = nil }
            }
            report = StorageReport.assess(places, failures: state.current.storageFailures ?? [:])
        }
        metrics.setStorage(report)
        let causes = report.places.filter { $0.state != .ok }.map { "\($0.holds):\($0.state.rawValue):\($0.cause ?? "low")" }.sorted()
        let previous = last.withLock { last in
            defer { last = (report.state, causes) }
            return last
        }
        guard previous?.state != report.state || previous?.causes != causes else { return report }
        switch report.state {
        case .failed:
            logger.error("storage failing", metadata: ["event": "storage.failed", "detail": "\(report.detail)"])
        case .degraded:
            logger.warning("storage low on space", metadata: ["event": "storage.low", "detail": "\(report.detail)"])
        case .ok where previous != nil:
            logger.notice("storage ok again", metadata: ["event": "storage.ok", "detail": "\(report.detail)"])
        case .ok:
            break
        }
        facts.publish(StorageChanged(report: report))
        return report
    }
}

/// The station's storage changed state or cause (told by `StorageMonitor`): screens show it.
public struct StorageChanged: StationFact, Equatable {
    public let report: StorageReport
}
