import EdgeCore
import Glibc

/// The system's IANA time zones (`/usr/share/zoneinfo/<name>`, package tzdata), each file read
/// once and kept (zones change only when tzdata is upgraded, and the agent restarts then).
public final class TimeZoneDatabase: Sendable {
    public static let standardDirectory = "/usr/share/zoneinfo"
    public static let maxNameBytes = 64
    /// One shared cache for the process.
    public static let system = TimeZoneDatabase()

    public let directory: String
    /// Parsed zones by name.
    private let cache = Locked<[String: TimeZoneRules]>([:])

    public init(directory: String = TimeZoneDatabase.standardDirectory) {
        self.directory = directory
    }

    /// The rules of zone `name` (`Europe/Berlin`, `UTC`).
    ///
    /// Throws `.invalidZoneName` for names that could leave the zoneinfo directory or are not
    /// IANA-shaped, `.unknownZone` when there is no such file, `.invalidZoneFile` when it is not
    /// a TZif file.
    public func rules(for name: String) throws(PushError) -> TimeZoneRules {
        // Only names that passed `validate` are cached, so a hit needs no check (issue #31: every
        // notification looks its user's zone up).
        if let cached = cache.withLock({ $0[name] }) { return cached }
        try Self.validate(name)
        let rules = try TZifParser.parse(try load(directory + "/" + name, zone: name), name: name)
        cache.withLock { $0[name] = rules }
        return rules
    }

    /// Checks an IANA name without reading the file: 1...64 bytes of letters, digits, `/`, `_`,
    /// `-`, `+`; no leading `/`, no `.` or `..` component.
    public static func validate(_ name: String) throws(PushError) {
        let bytes = Array(name.utf8)
        func refuse(_ why: String) -> PushError {
            PushError(.invalidZoneName, "\"\(String(name.prefix(80)))\" is not a time zone name (\(why)); use an IANA name such as Europe/Berlin.",
                      context: ["field": "timeZone", "bytes": String(bytes.count)])
        }
        guard !bytes.isEmpty, bytes.count <= maxNameBytes else { throw refuse("1 to \(maxNameBytes) characters") }
        guard bytes.first != UInt8(ascii: "/") else { throw refuse("absolute path") }
        for byte in bytes {
            let allowed = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57)
                || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
            guard allowed else { throw refuse("unexpected character") }
        }
        let dot = UInt8(ascii: ".")
        for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            guard !component.isEmpty, component.elementsEqual([dot]) == false, component.elementsEqual([dot, dot]) == false else {
                throw refuse("empty, . or .. component")
            }
        }
    }

    private func load(_ path: String, zone: String) throws(PushError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw PushError(.unknownZone, "There is no time zone \(zone) on this station (\(reason)); is the tzdata package installed?",
                            context: ["zone": zone, "path": path, "errno": reason])
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                let reason = String(cString: strerror(errno))
                throw PushError(.unknownZone, "The time zone file for \(zone) cannot be read (\(reason)).",
                                context: ["zone": zone, "path": path, "errno": reason])
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0 ..< count])
            guard bytes.count <= TZifParser.maxBytes else {
                throw PushError(.invalidZoneFile, "The time zone file for \(zone) is too large to be a zone file.",
                                context: ["zone": zone, "path": path])
            }
        }
        return bytes
    }
}
