import Dispatch
import Glibc

/// SIGINT and SIGTERM handed to `handler` on a dispatch queue instead of ending the process, so
/// long-running commands (`edge scan --camera`, `edge sync run --watch`) stop cleanly. Until
/// `cancel()`, both signals stay ignored by default handling.
struct TerminationSignals {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
    }
}
