import Glibc

/// A value behind a `pthread_mutex_t`: the project's one lock type (issue #27: no
/// `Synchronization.Mutex` beside it; `Atomic` stays for single counters and flags).
///
/// Decision: not `Synchronization.Mutex`. On Linux that lock is a futex whose fast path lives in
/// the (uninstrumented) toolchain library, so ThreadSanitizer cannot see it and reports every
/// access under it as a race; a pthread mutex is intercepted by TSan, which keeps
/// `swift test --sanitize=thread` meaningful for the transport's threads.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between pthread_mutex_lock and pthread_mutex_unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    public func get() -> Value { withLock { $0 } }

    public func set(_ newValue: Value) { withLock { $0 = newValue } }
}
