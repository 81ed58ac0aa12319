#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Parsed zones by name, behind a pthread mutex.
///
/// Decision: a pthread mutex rather than `Synchronization.Mutex`, as in EdgeSync's `Locked`:
/// ThreadSanitizer sees it, and it needs no macOS 15 availability.
final class ZoneCache: @unchecked Sendable {
    // @unchecked: `zones` is only touched between lock and unlock.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var zones: [String: TimeZoneRules] = [:]

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func rules(for name: String) -> TimeZoneRules? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return zones[name]
    }

    func store(_ rules: TimeZoneRules) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        zones[rules.name] = rules
    }
}
