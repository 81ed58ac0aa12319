import NIOCore

/// An event loop as a task executor (SE-0417), so a task that does little but wait for this
/// loop's I/O can run on the loop itself (the version of swift-nio here has none of its own).
///
/// Why (issue #31): the relay's sends are child tasks that build a request, wait for its answer
/// and read it. On the station's workers each answer cost a hop from the loop to a worker (a
/// semaphore post and, when the workers sleep, a thread wake and a context switch) and the
/// request one back. Run on the loop, a send starts its request without a hop and its answer
/// resumes it where the answer arrived. Only code that never blocks may prefer it.
final class EventLoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `loop` is Sendable; nothing else is stored.
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
