import Synchronization

/// Set once by a signal handler or a deadline, read by every capture thread.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}
