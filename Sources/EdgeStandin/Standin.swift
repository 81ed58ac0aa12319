import EdgeContract
import EdgeCore
import Logging
import ServiceLifecycle

/// A stand-in backend running in the test's own process (SYN-11), on 127.0.0.1 and a free port:
///
/// ```swift
/// let standin = Standin(configuration: StandinConfiguration(staticTokens: ["t"], seedDemoData: true))
/// let port = try await standin.start()          // port 0: any free port
/// standin.faults.add(.drop, pathPrefix: APIPath.syncPush, times: 1)
/// ... talk HTTP to standin.baseURL ...
/// XCTAssertEqual(standin.backend.applications(ofKey: key), 1)
/// await standin.stop()
/// ```
public final class Standin: Sendable {
    public let configuration: StandinConfiguration
    public let backend: StandinBackend

    private struct Running {
        var group: ServiceGroup
        var task: Task<Void, Never>
        var port: Int
    }

    private let running = Locked<Running?>(nil)

    public init(configuration: StandinConfiguration = StandinConfiguration()) {
        self.configuration = configuration
        backend = StandinBackend(configuration: configuration)
    }

    /// The faults in force; change them at any time.
    public var faults: FaultInjector { backend.faults }
    /// Every request received on a non-control path.
    public var requests: [RecordedRequest] { backend.journal.requests }
    /// One record per Idempotency-Key.
    public var applied: [AppliedRecord] { backend.applied }

    /// The bound port while running.
    public var port: Int? { running.withLock { $0?.port } }

    /// `http://127.0.0.1:PORT` (`https://` with TLS) while running.
    public var baseURL: String? { port.map { "\(configuration.scheme)://\(StandinConfiguration.loopbackHost):\($0)" } }

    /// Starts serving on 127.0.0.1:`port` (0: a free port) and returns the bound port once the
    /// server listens. Throws for a non-loopback host, a port in use, or a second start.
    @discardableResult
    public func start(port: Int = 0) async throws -> Int {
        if self.port != nil {
            throw StandinError(.alreadyStarted, "The stand-in is already running")
        }
        let signal = StartupSignal()
        let application = try buildStandinApplication(configuration: configuration, backend: backend, port: port) { bound in
            signal.resolve(.success(bound))
        }
        var logger = Logger(label: "edge-standin")
        logger.logLevel = configuration.logLevel
        // A ServiceGroup of our own, without signal handlers: the test process's signals are not
        // the stand-in's, and stop() needs a graceful shutdown to trigger.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            do {
                try await group.run()
                signal.resolve(.failure(StandinError(.startFailed, "The stand-in stopped before it listened")))
            } catch {
                signal.resolve(.failure(StandinError(.startFailed, "The stand-in could not start: \(error)")))
            }
        }
        do {
            let bound = try await signal.wait()
            running.withLock { $0 = Running(group: group, task: task, port: bound) }
            return bound
        } catch {
            await group.triggerGracefulShutdown()
            await task.value
            throw error
        }
    }

    /// Stops serving: a graceful shutdown, then cancellation if connections keep it open longer
    /// than `timeout` (a client parked on a delay fault, say). Safe to call twice.
    public func stop(timeout: Duration = .seconds(5)) async {
        guard let current = running.withLock({ running -> Running? in
            defer { running = nil }
            return running
        }) else { return }
        await current.group.triggerGracefulShutdown()
        let watchdog = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { current.task.cancel() }
        }
        await current.task.value
        watchdog.cancel()
    }
}
