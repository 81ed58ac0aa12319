import EdgeCore
import EdgeImaging
import EdgePayloads
import EdgeScanning
import EdgeStore
import FoundationEssentials
import Logging
import ServiceLifecycle

/// Runs one scanning loop per configured camera (AGT-1, AGT-4): frames from a `FrameSource` on
/// the camera's own thread, decoded, passed through the repeat filter (SCN-7), classified and
/// recorded as scan events. `apply` (SIGHUP) stops cameras that were removed or changed and
/// starts new ones; a camera whose entry did not change keeps streaming.
public final class CameraSupervisor: Service, Sendable {
    /// What a camera loop reads for each frame; replaced whole on reload.
    public struct Context: Sendable {
        public var classifier: PayloadClassifier
        public var policy: ScanEventPolicy
        public var repeatGap: Duration
    }

    private let recorder: ScanEventRecorder
    private let makeSource: @Sendable (StationCamera) -> any FrameSource
    private let metrics: AgentMetrics
    private let state: AgentState
    private let logger: Logger
    /// Told when recording fails for want of a working disk, and when it works again.
    private let storage: StorageMonitor?
    private let context: Locked<Context>
    private let running = Locked<[String: RunningCamera]>([:])
    private let wanted: Locked<[StationCamera]>
    private let readerOptions: ReaderOptions
    /// How long a camera whose source gave up waits before it is tried again.
    private let retry: BackoffPolicy
    /// Stills asked for (the kiosk's photo evidence, UI-2), per camera name: the next frame
    /// that camera's loop takes is copied to each of them.
    private let stills = Locked<[String: [Still]]>([:])
    /// Told of every recorded read with its decoded text, after its commit (`ScanRecorded`), and
    /// of every camera going up or down (`CameraStateChanged`).
    private let facts: StationFacts

    public init(cameras: [StationCamera], context: Context, recorder: ScanEventRecorder, metrics: AgentMetrics, state: AgentState,
                facts: StationFacts, logger: Logger, storage: StorageMonitor? = nil, readerOptions: ReaderOptions = .cameraFrame(),
                retry: BackoffPolicy = .standard, makeSource: @escaping @Sendable (StationCamera) -> any FrameSource) {
        self.retry = retry
        self.storage = storage
        self.recorder = recorder
        self.makeSource = makeSource
        self.metrics = metrics
        self.state = state
        self.facts = facts
        self.logger = logger
        self.context = Locked(context)
        self.wanted = Locked(cameras)
        self.readerOptions = readerOptions
    }

    public func run() async throws {
        await apply(cameras: wanted.withLock { $0 }, context: nil)
        // Runs until graceful shutdown (or cancellation), then stops taking frames: each loop
        // finishes the frame and the transaction in flight before it returns.
        try? await gracefulShutdown()
        let all = running.withLock { running in defer { running = [:] }; return Array(running.values) }
        for camera in all { camera.stop.set() }
        for camera in all { await camera.finished.value }
    }

    /// The next frame `camera` takes, copied (photo evidence from the camera the agent already
    /// streams: a second stream on the device would be refused as busy). Throws when the camera
    /// is not configured or no frame comes within `timeout`.
    ///
    /// Decision: the still has the stream's resolution (the camera preset's), not the sensor's
    /// largest: stopping the scanning stream for a full-size still would blind the dock for a second
    /// or more, and a 1280x720 gray still shows a damaged carton or a label well enough.
    public func still(camera name: String, timeout: Duration) async throws -> GrayImage {
        guard wanted.withLock({ $0.contains { $0.name == name } }) else { throw StillError.unknownCamera(name) }
        let id = UInt64.random(in: 0...UInt64.max)
        return try await withCheckedThrowingContinuation { continuation in
            self.stills.withLock { $0[name, default: []].append(Still(id: id, continuation: continuation)) }
            // Whoever takes the entry out resumes it: the camera loop with a frame, or this timer.
            Task {
                try? await Task.sleep(for: timeout)
                let expired = self.stills.withLock { waiting -> Still? in
                    guard let index = waiting[name]?.firstIndex(where: { $0.id == id }) else { return nil }
                    return waiting[name]?.remove(at: index)
                }
                expired?.continuation.resume(throwing: StillError.noFrame(name, timeout))
            }
        }
    }

    private struct Still: Sendable {
        let id: UInt64
        let continuation: CheckedContinuation<GrayImage, any Error>
    }

    /// Why no still came.
    public enum StillError: Error, Sendable {
        case unknownCamera(String)
        case noFrame(String, Duration)

        public var message: String {
            switch self {
            case .unknownCamera(let name): "No camera named \(name) is configured on this station."
            case .noFrame(let name, let timeout): "The camera \(name) gave no picture within \(timeout.components.seconds) s; is it connected?"
            }
        }
    }

    /// Reload: new context for every camera, and the camera set made equal to `cameras`. A
    /// changed camera's old loop has ended before its new one starts: the two share its name in
    /// the state (the old loop's last word, "down", must not follow the new one's "up") and, on a
    /// real device, the device itself.
    public func apply(cameras: [StationCamera], context newContext: Context?) async {
        if let newContext { context.withLock { $0 = newContext } }
        wanted.withLock { $0 = cameras }
        let stopped = running.withLock { running -> [RunningCamera] in
            var stopped: [RunningCamera] = []
            let byName = Dictionary(cameras.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            for (name, camera) in running where byName[name] != camera.camera {
                stopped.append(camera)
                running[name] = nil
            }
            return stopped
        }
        for camera in stopped {
            camera.stop.set()
            await camera.finished.value
            if !cameras.contains(where: { $0.name == camera.camera.name }) {
                state.update { $0.cameras[camera.camera.name] = nil }
            }
            logger.info("camera stopped", metadata: ["event": "camera.stopped", "camera": "\(camera.camera.name)"])
        }
        let started = running.withLock { running -> [StationCamera] in
            let started = cameras.filter { running[$0.name] == nil }
            for camera in started { running[camera.name] = start(camera) }
            return started
        }
        for camera in started {
            logger.info("camera started", metadata: ["event": "camera.started", "camera": "\(camera.name)", "device": "\(camera.device)"])
        }
    }

    private func start(_ camera: StationCamera) -> RunningCamera {
        let stop = StopFlag()
        let finished = Task(executorPreference: StationExecutor.shared) { [self] in
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Capture blocks in poll and decoding takes a core: the camera's own thread, not
                // a shared pool's.
                do throws(NamedThread.StartError) {
                    try NamedThread.start(name: "edge-cam-" + camera.name) {
                        self.supervise(camera, stop: stop)
                        continuation.resume()
                    }.detach()
                } catch {
                    logger.error("camera not started", metadata: ["event": "camera.failed", "camera": "\(camera.name)", "reason": "\(error.message)"])
                    state.update { $0.cameras[camera.name] = AgentState.Camera(name: camera.name, device: camera.device, up: false,
                                                                               detail: error.message, frames: 0, events: 0) }
                    continuation.resume()
                }
            }
        }
        return RunningCamera(camera: camera, stop: stop, finished: finished)
    }

    /// Runs the camera's loop until it is stopped. A source that gives up by itself (a device
    /// that is not a usable camera, a replay file that cannot be read; a missing or unplugged
    /// device is waited for inside the source, HW-3) is made again after a backoff wait, which
    /// status shows in the camera's detail (issue #28 item 4). A loop that ran for at least the
    /// cap before giving up starts again from the first wait.
    private func supervise(_ camera: StationCamera, stop: StopFlag) {
        let clock = ContinuousClock()
        var failures = 0
        while !stop.isSet {
            let started = clock.now
            // The source is made on the thread that uses it and never leaves it.
            loop(camera, source: makeSource(camera), stop: stop)
            if stop.isSet { return }
            failures = clock.now - started >= .seconds(retry.cap) ? 1 : failures + 1
            let delay = retry.ceiling(failures: failures - 1)
            logger.warning("camera retrying", metadata: ["event": "camera.retrying", "camera": "\(camera.name)", "attempts": "\(failures)",
                                                         "retry_in": "\(delay)"])
            changeCamera(camera.name) { $0.detail = ($0.detail ?? "stopped") + "; try \(failures + 1) in \(Self.seconds(delay))" }
            if stop.wait(upTo: .milliseconds(Int64(delay * 1000))) { return }
        }
    }

    /// "8 s", "0.2 s": a backoff wait as status shows it.
    static func seconds(_ value: Double) -> String {
        value >= 1 ? "\(Int(value.rounded())) s" : "\((value * 10).rounded() / 10) s"
    }

    /// One camera's loop, on its own thread.
    private func loop(_ camera: StationCamera, source: any FrameSource, stop: StopFlag) {
        let clock = ContinuousClock()
        let handles = metrics.camera(camera.name)
        state.update { $0.cameras[camera.name] = AgentState.Camera(name: camera.name, device: camera.device, up: false, detail: "starting",
                                                                   frames: 0, events: 0) }
        let pipeline: FramePipeline
        do {
            pipeline = try FramePipeline(options: readerOptions, repeatGap: context.withLock { $0.repeatGap })
        } catch {
            state.update { $0.cameras[camera.name]?.detail = error.message }
            return
        }
        var frames = 0
        var lastPublished = clock.now
        var notRecorded = FailureRun()
        source.capture(shouldStop: { stop.isSet }, onEvent: { event in
            switch event {
            case .up(let description):
                handles.up.record(1)
                logger.info("camera up", metadata: ["event": "camera.up", "camera": "\(camera.name)", "detail": "\(Self.oneLine(description))"])
                changeCamera(camera.name) { $0.up = true; $0.detail = Self.oneLine(description) }
            case .down(let reason):
                handles.up.record(0)
                logger.warning("camera down", metadata: ["event": "camera.down", "camera": "\(camera.name)", "reason": "\(Self.oneLine(reason))"])
                changeCamera(camera.name) { $0.up = false; $0.detail = Self.oneLine(reason) }
            case .failed(let reason):
                handles.up.record(0)
                logger.error("camera failed", metadata: ["event": "camera.failed", "camera": "\(camera.name)", "reason": "\(Self.oneLine(reason))"])
                changeCamera(camera.name) { $0.up = false; $0.detail = "failed: " + Self.oneLine(reason) }
            }
        }, onFrame: { frame in
            handles.frames.increment()
            frames += 1
            let waiting = stills.withLock { $0.removeValue(forKey: camera.name) ?? [] }
            if !waiting.isEmpty {
                let still = frame.luma.copy()
                for request in waiting { request.continuation.resume(returning: still) }
            }
            let started = clock.now
            let current = context.withLock { $0 }
            let reads: [FramePipeline.Read]
            do throws(ScanError) {
                reads = try pipeline.reads(in: frame, classifier: current.classifier, repeatGap: current.repeatGap)
            } catch {
                logger.warning("frame not decoded", metadata: ["event": "camera.frame_error", "camera": "\(camera.name)", "reason": "\(error.code.rawValue)"])
                return !stop.isSet
            }
            handles.decodeTime.recordNanoseconds(Self.nanoseconds(clock.now - started))
            for read in reads {
                record(read, camera: camera.name, frame: frame, context: current, handles: handles, clock: clock, failures: &notRecorded)
            }
            // Frame counts reach status at most once a second, whatever the frame rate.
            if clock.now - lastPublished >= .seconds(1) {
                lastPublished = clock.now
                state.update { $0.cameras[camera.name]?.frames = frames }
            }
            return !stop.isSet
        })
        handles.up.record(0)
        changeCamera(camera.name) { $0.up = false; $0.frames = frames }
    }

    /// A camera's state changed: into the agent's state, and to the fact stream for screens.
    private func changeCamera(_ name: String, _ change: (inout AgentState.Camera) -> Void) {
        var changed: AgentState.Camera?
        state.update { snapshot in
            guard var camera = snapshot.cameras[name] else { return }
            change(&camera)
            snapshot.cameras[name] = camera
            changed = camera
        }
        if let changed { facts.publish(CameraStateChanged(camera: changed)) }
    }

    private func record(_ read: FramePipeline.Read, camera: String, frame: SourceFrame, context: Context, handles: CameraMetrics,
                        clock: ContinuousClock, failures: inout FailureRun) {
        let (result, classification) = (read.result, read.classification)
        let action = context.policy.action(for: classification.className)
        guard action != .ignore else { return }
        do throws(StoreError) {
            guard let event = try recorder.record(camera: camera, result: result, classification: classification, action: action,
                                                  dequeuedAt: frame.dequeuedAt, clock: clock) else { return }
            handles.frameToEvent.recordNanoseconds(Self.nanoseconds(clock.now - frame.dequeuedAt))
            handles.event(className: event.className, action: event.action)
            if let missed = failures.succeeded() {
                logger.notice("scan events recorded again", metadata: ["event": "scan.store_recovered", "camera": "\(camera)",
                                                                     "not_recorded": "\(missed)"])
            }
            storage?.succeeded("database")
            logger.info("scan", metadata: ["event": "scan", "camera": "\(camera)", "id": "\(event.id ?? 0)", "symbology": "\(event.symbology)",
                                           "class": "\(event.className)", "valid": "\(event.valid)", "text": "\(Self.oneLine(event.masked))",
                                           "action": "\(event.action)", "latency_ms": "\((event.latencyMs * 100).rounded() / 100)"])
            state.update { snapshot in
                snapshot.cameras[camera]?.events += 1
                snapshot.cameras[camera]?.lastEventAt = event.capturedAt
                snapshot.cameras[camera]?.lastEvent = event.className + " " + Self.oneLine(event.masked)
            }
            // After the commit: `record` returned, so a subscriber that reads the row finds it.
            facts.publish(ScanRecorded(camera: camera, result: result, classification: classification, event: event))
        } catch {
            // Nothing was written: the code is seen again while it stays in view, after the gap.
            // One line when recording starts failing (or fails otherwise), one when it works
            // again with the count: a full disk must not log every frame (issue #30).
            storage?.failed("database", error)
            if failures.failed(kind: error.code.rawValue + "/" + (error.context["cause"] ?? "")) {
                logger.error("scan event not recorded", metadata: ["event": "scan.store_failed", "camera": "\(camera)", "reason": "\(error.message)"])
            }
        }
    }

    /// Control characters and bidi overrides out of a log value: a hostile code must not forge
    /// log lines or reorder what an operator reads.
    static func oneLine(_ text: String, limit: Int = 200) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit).map { scalar in
            let value = scalar.value
            let hidden = value < 0x20 || value == 0x7F || (0x80...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0x200E || value == 0x200F
            return hidden ? "?" : scalar
        }))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

/// A started camera loop: its entry, its stop flag, and the task that ends when the loop has.
private final class RunningCamera: Sendable {
    let camera: StationCamera
    let stop: StopFlag
    let finished: Task<Void, Never>

    init(camera: StationCamera, stop: StopFlag, finished: Task<Void, Never>) {
        self.camera = camera
        self.stop = stop
        self.finished = finished
    }
}
