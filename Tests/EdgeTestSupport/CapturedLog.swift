import EdgeCore
import Logging

/// Every line a logger wrote, as `level message key=value ...` (metadata sorted), for tests that
/// check what the station told the operator. `EDGE_TEST_LOG=1` still echoes nothing here; the
/// lines are the test's to read.
public final class CapturedLog: Sendable {
    private let lines = Locked<[String]>([])

    public init() {}

    public var all: [String] { lines.get() }

    /// The lines whose `event=` is `event`.
    public func events(_ event: String) -> [String] {
        all.filter { $0.contains(" event=\(event)") }
    }

    /// A logger writing here.
    public var logger: Logger {
        Logger(label: "edge-test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            let all = metadata.merging(explicit ?? [:]) { _, new in new }
            let text = "\(level) \(message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            log.lines.withLock { $0.append(text) }
        }
    }
}
