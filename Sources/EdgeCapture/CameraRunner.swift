import Glibc

/// Runs one camera until told to stop, surviving unplug and re-plug (HW-3): a device that goes
/// away (ENODEV/EIO), or delivers nothing within the frame timeout, is closed cleanly, reported,
/// counted, and re-opened when its node comes back, without restarting the agent.
///
/// One runner per camera, each on its own thread: `run` blocks in poll.
public final class CameraRunner {
    public let path: String
    private let driver: any VideoDriver
    private let configure: (CameraIdentity) -> CaptureConfiguration
    /// How often a missing node is looked for again.
    public let retryInterval: Duration
    public private(set) var statistics = CameraStatistics()

    /// `configure` picks the configuration for whatever camera is at `path` each time it is
    /// opened (a different model may be plugged into the same port).
    public init(path: String, driver: any VideoDriver = LibV4L2Driver(), retryInterval: Duration = .milliseconds(200),
                configure: @escaping (CameraIdentity) -> CaptureConfiguration) {
        self.path = path
        self.driver = driver
        self.retryInterval = retryInterval
        self.configure = configure
    }

    /// Opens the camera once, for callers that want a missing camera at start to be an error
    /// rather than an outage to wait out.
    public func openFirst() throws(CaptureError) -> CameraSession {
        try CameraSession(device: VideoDevice(path: path, driver: driver), configuration: configure(CameraIdentity.of(node: path)))
    }

    /// Captures until `shouldStop` says so or `onFrame` returns false. `first` is a session from
    /// `openFirst`, or nil to open (and wait for) the camera here.
    public func run(first: CameraSession? = nil, shouldStop: () -> Bool, onEvent: (CameraEvent) -> Void,
                    onFrame: (CameraFrame) -> Bool) {
        let clock = ContinuousClock()
        var session = first
        var lostAt: ContinuousClock.Instant? = nil
        if let session { onEvent(.opened(session.format, session.capabilities, CameraIdentity.of(node: path))) }
        while !shouldStop() {
            guard let current = session else {
                switch openWhenPresent(shouldStop: shouldStop, onEvent: onEvent) {
                case .some(let opened):
                    session = opened
                    if let lostAt {
                        let downtime = clock.now - lostAt
                        statistics.totalDowntime += downtime
                        onEvent(.restored(downtime: downtime, outage: statistics.outages))
                    } else {
                        onEvent(.opened(opened.format, opened.capabilities, CameraIdentity.of(node: path)))
                    }
                    lostAt = nil
                    continue
                case .none:
                    return
                }
            }
            do throws(CaptureError) {
                let keepGoing = try current.nextFrame { frame in onFrame(frame) }
                statistics.frames += 1
                if !keepGoing { break }
            } catch {
                switch error.code {
                case .deviceGone, .timedOut, .systemError, .notFound:
                    if error.code == .timedOut { statistics.timeouts += 1 }
                    current.close()
                    session = nil
                    statistics.outages += 1
                    lostAt = clock.now
                    onEvent(.lost(error, outage: statistics.outages))
                default:
                    current.close()
                    onEvent(.failed(error))
                    return
                }
            }
        }
        session?.close()
    }

    /// nil when stopped or the camera turned out unusable (reported as `.failed`).
    private func openWhenPresent(shouldStop: () -> Bool, onEvent: (CameraEvent) -> Void) -> CameraSession? {
        var lastReported: CaptureErrorCode? = nil
        while !shouldStop() {
            if driver.exists(path) {
                do throws(CaptureError) {
                    return try openFirst()
                } catch {
                    switch error.code {
                    case .notFound, .deviceGone, .permissionDenied, .busy, .timedOut, .systemError:
                        // Report each kind once per outage, not every retry.
                        if error.code != lastReported && error.code != .notFound { onEvent(.retrying(error)) }
                        lastReported = error.code
                    default:
                        onEvent(.failed(error))
                        return nil
                    }
                }
            }
            sleep(retryInterval)
        }
        return nil
    }

    private func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
