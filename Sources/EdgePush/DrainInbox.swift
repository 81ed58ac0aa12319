import Synchronization

/// Where `PushSender`'s child tasks leave what they came to (answers, reads, ticks), and where
/// its drain waits for them.
///
/// Why not `TaskGroup.next()` (issue #31): every child's end then woke the drain, one thread
/// wake (a semaphore post, a context switch) per answer. An answer the drain has no use for yet
/// (nothing queued waits for a free send, other sends are still open) now waits here for the
/// next urgent event (a read, the 5 ms tick) or for the number of answers the drain asked for.
final class DrainInbox<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var answers = 0
        /// An urgent event is among `events`: the drain should have them at once.
        var urgent = false
        /// Answers that wake the waiting drain.
        var wakeAfter = 1
        var waiter: UnsafeContinuation<[Event], Never>?

        /// Everything deposited, if the drain should have it now.
        mutating func takeIfDue() -> [Event]? {
            guard urgent || (answers > 0 && answers >= wakeAfter) else { return nil }
            defer {
                events.removeAll(keepingCapacity: true)
                answers = 0
                urgent = false
            }
            return events
        }
    }

    private let state = Mutex(State())

    /// A drain is parked in `take` (for tests that check what does not wake it).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Leaves `event`: an answer (`urgent` false) counts towards the drain's `afterAnswers`; an
    /// urgent event wakes it whatever it waits for.
    func deposit(_ event: Event, urgent: Bool) {
        let wake: (UnsafeContinuation<[Event], Never>, [Event])? = state.withLock { state in
            state.events.append(event)
            if urgent { state.urgent = true } else { state.answers += 1 }
            guard let waiter = state.waiter, let events = state.takeIfDue() else { return nil }
            state.waiter = nil
            return (waiter, events)
        }
        if let (waiter, events) = wake { waiter.resume(returning: events) }
    }

    /// Everything deposited so far, in order, once an urgent event or at least `afterAnswers`
    /// answers (at least one) have come. One drain waits at a time.
    func take(afterAnswers: Int) async -> [Event] {
        await withUnsafeContinuation { continuation in
            let ready: [Event]? = state.withLock { state in
                state.wakeAfter = max(1, afterAnswers)
                if let events = state.takeIfDue() { return events }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
