import EdgeCore
import EdgeTestSupport
import Glibc
import Testing

@Suite struct StationExecutorTests {
    /// Issue #30 item 5: work that blocks runs on the executor's own threads, however much of it
    /// comes at once, and never on libdispatch's (whose pools grow when their workers block).
    @Test func blockingWorkStaysOnItsFixedThreads() async {
        let executor = StationExecutor(threads: 3, name: "test-blocking")
        let names = await withTaskExecutorPreference(executor) {
            await withTaskGroup(of: String.self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        usleep(20_000)  // a blocking call, as SQLite's fsync is
                        return ThreadNames.current()
                    }
                }
                return await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
        }
        #expect(names.allSatisfy { $0.hasPrefix("test-blocking-") }, "ran on \(names.sorted())")
        #expect(names.count <= 3)
        #expect(ThreadNames.all().filter { $0.hasPrefix("test-blocking-") }.count == 3)
    }

    /// Jobs run in the order they came: with one thread, children run as they were added.
    @Test func jobsRunFirstInFirstOut() async {
        let executor = StationExecutor(threads: 1, name: "test-fifo")
        let order = Locked<[Int]>([])
        await withTaskExecutorPreference(executor) {
            // This task holds the one thread while it adds the children, so all ten are queued
            // before the first runs.
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<10 { group.addTask { order.withLock { $0.append(index) } } }
            }
        }
        #expect(order.get() == Array(0..<10))
    }

    /// A task started with the executor as its preference runs there; the station's parts start
    /// their unstructured tasks this way, since those do not inherit the preference.
    @Test func anUnstructuredTaskRunsThereWhenItAsks() async {
        let executor = StationExecutor(threads: 2, name: "test-asked")
        let name = await Task(executorPreference: executor) { ThreadNames.current() }.value
        #expect(name.hasPrefix("test-asked-"))
    }
}
