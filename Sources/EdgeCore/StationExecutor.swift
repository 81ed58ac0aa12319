import Glibc

/// The station's own worker threads, a fixed number of them, as a task executor (SE-0417):
/// `Agent.run` runs every part with this as its tasks' preference, so the nonisolated async code
/// and the default actors of `edge run` run here, and the unstructured tasks the parts start ask
/// for it by name (`Task(executorPreference: StationExecutor.shared)`; they do not inherit it).
///
/// Why (issue #30 item 5): the parts make blocking calls from async code, SQLite's transactions
/// with `synchronous=FULL` fsyncs above all. On Swift's default executor those block
/// libdispatch's workers, and libdispatch adds a worker whenever the ones it has are blocked and
/// keeps it as long as work keeps coming: in a 75-minute soak its pools went from 15 to 17 threads,
/// following the load's bursts. Here the count is fixed at start; a blocked worker holds up the
/// jobs behind it, not the process's thread count.
///
/// Decisions:
/// - Jobs run first in, first out; task priorities are not looked at. The station's parts are of
///   one kind (I/O-bound, short), and a kiosk answer waits behind at most a few transactions.
/// - `max(4, 2 × CPUs)`, at most 16: enough that the few blocking writes in flight at once (the
///   writer connection takes one at a time; the others wait for it) leave workers for the
///   kiosk's reads and the HTTP answers.
/// - Threads start with the first job and live as long as the process, like NIO's singleton
///   event loops. A thread that cannot start is logged nowhere (there is no logger this low) but
///   costs only capacity; with none at all, jobs go to Swift's global executor.
public final class StationExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `queue` and `started` are only touched under `mutex`.
    public static let shared = StationExecutor(threads: defaultThreadCount, name: "edge-worker")

    public static var defaultThreadCount: Int {
        min(16, max(4, 2 * Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let ready: UnsafeMutablePointer<pthread_cond_t>
    /// First in, first out as two stacks: `incoming` is pushed, `outgoing` popped, refilled
    /// reversed when empty (amortised O(1); the two buffers are swapped, not reallocated).
    private var incoming: [UnownedJob] = []
    private var outgoing: [UnownedJob] = []
    private var started = 0
    private var startFailed = false
    public let threadCount: Int
    /// Its threads are named this, a dash and their number.
    public let name: String

    public init(threads: Int, name: String) {
        threadCount = max(1, threads)
        self.name = name
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        ready = .allocate(capacity: 1)
        ready.initialize(to: pthread_cond_t())
        pthread_cond_init(ready, nil)
    }

    // Never runs for `shared`; an instance whose threads started is kept alive by them.
    deinit {
        pthread_cond_destroy(ready)
        ready.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(mutex)
        if started == 0 && !startFailed { startThreads() }
        guard started > 0 else {
            pthread_mutex_unlock(mutex)
            globalConcurrentExecutor.enqueue(job)
            return
        }
        incoming.append(job)
        pthread_cond_signal(ready)
        pthread_mutex_unlock(mutex)
    }

    /// Called under `mutex`, once.
    private func startThreads() {
        for index in 0..<threadCount {
            do {
                let thread = try NamedThread.start(name: "\(name)-\(index)") { [self] in work() }
                thread.detach()
                started += 1
            } catch {
                break
            }
        }
        startFailed = started == 0
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            pthread_mutex_lock(mutex)
            while incoming.isEmpty && outgoing.isEmpty { pthread_cond_wait(ready, mutex) }
            if outgoing.isEmpty {
                swap(&incoming, &outgoing)
                outgoing.reverse()
            }
            let job = outgoing.removeLast()
            pthread_mutex_unlock(mutex)
            job.runSynchronously(on: executor)
        }
    }
}
