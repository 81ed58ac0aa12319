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
    // @unchecked: the queue is behind `Locked`; `jobs` is a POSIX semaphore, safe from any thread.
    public static let shared = StationExecutor(threads: defaultThreadCount, name: "edge-worker")

    public static var defaultThreadCount: Int {
        min(16, max(4, 2 * Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    public let threadCount: Int
    /// Its threads are named this, a dash and their number.
    public let name: String
    private let queue = Locked(JobQueue())
    /// Counts the queued jobs: a worker takes one job per wait.
    private let jobs: UnsafeMutablePointer<sem_t>

    public init(threads: Int, name: String) {
        threadCount = max(1, threads)
        self.name = name
        jobs = .allocate(capacity: 1)
        jobs.initialize(to: sem_t())
        sem_init(jobs, 0, 0)
    }

    // Never runs for `shared`; an instance whose threads started is kept alive by them.
    deinit {
        sem_destroy(jobs)
        jobs.deallocate()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = queue.withLock { queue -> Bool in
            if queue.threads == nil { queue.threads = startThreads() }
            guard queue.threads != 0 else { return false }
            queue.push(job)
            return true
        }
        if queued {
            sem_post(jobs)
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// How many of the threads started (called once, with the first job).
    private func startThreads() -> Int {
        var started = 0
        for index in 0..<threadCount {
            do {
                try NamedThread.start(name: "\(name)-\(index)") { [self] in work() }.detach()
                started += 1
            } catch {
                break
            }
        }
        return started
    }

    private func work() {
        let executor = asUnownedTaskExecutor()
        while true {
            while sem_wait(jobs) != 0 {}  // EINTR: a signal came; wait again.
            guard let job = queue.withLock({ $0.pop() }) else { continue }
            job.runSynchronously(on: executor)
        }
    }

    /// First in, first out as two stacks: `incoming` is pushed, `outgoing` popped, refilled
    /// reversed when empty (amortised O(1); the two buffers are swapped, not reallocated).
    private struct JobQueue {
        var incoming: [UnownedJob] = []
        var outgoing: [UnownedJob] = []
        /// nil until the first job; then how many threads started.
        var threads: Int?

        mutating func push(_ job: UnownedJob) { incoming.append(job) }

        mutating func pop() -> UnownedJob? {
            if outgoing.isEmpty {
                swap(&incoming, &outgoing)
                outgoing.reverse()
            }
            return outgoing.popLast()
        }
    }
}
