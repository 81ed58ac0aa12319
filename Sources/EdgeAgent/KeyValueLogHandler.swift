import EdgeCore
import FoundationEssentials
import Glibc
import Logging

/// One line per event on stderr (AGT-7): `level=info msg="scan" event=scan camera=dock ...`,
/// keys sorted, values quoted when they hold spaces or quotes and stripped of control
/// characters. Under systemd (JOURNAL_STREAM set) the journal adds the time, so the line has
/// none; otherwise it starts with an ISO 8601 time. Callers never pass secrets as metadata.
public struct KeyValueLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let withTime: Bool
    private static let lock = Locked(())

    public init(label: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        withTime = environment["JOURNAL_STREAM"] == nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var line = withTime ? "time=" + LocalTimestampText.now() + " " : ""
        line += "level=\(event.level.rawValue) component=\(label) msg=" + Self.quoted(event.message.description)
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() {
            line += " " + key + "=" + Self.quoted("\(merged[key].map { "\($0)" } ?? "")")
        }
        line += "\n"
        // One write(2) per line under a lock, so lines from several threads never interleave.
        let bytes = Array(line.utf8)
        Self.lock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(2, $0.baseAddress.map { $0 + offset }, bytes.count - offset) }
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
            }
        }
    }

    static func quoted(_ value: String) -> String {
        // Longer than a camera's text: an error's reason names files and the cause after them
        // (issue #30: a full disk's words were cut off at 200 characters under a long path).
        let clean = CameraSupervisor.oneLine(value, limit: 2000)
        guard clean.isEmpty || clean.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return clean }
        return "\"" + clean.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

enum LocalTimestampText {
    static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(now.tv_nsec / 1_000_000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
