import EdgeCore

/// The disks the station writes to, for status, the kiosk and /metrics (issue #30 item 1,
/// AGT-11): each place (the database, the status file, the vault, its keys, photos) with its
/// disk's free space, whether it is read-only, and the last write there that failed.
///
/// Decisions (the spec is silent on numbers):
/// - **failed**: the disk is read-only, has less than `fullBelowBytes` (1 MiB) free, or a write
///   there failed (full, read-only, quota, I/O error) and none has succeeded since. Below 1 MiB
///   a SQLite transaction's pages, a 4 MiB photo or a vault file no longer reliably fit.
/// - **degraded** (low on space): less than `lowSpaceBytes`: 10 % of the disk, at most 1 GiB
///   (plenty for weeks of a station's writes; a 10 % rule alone would warn with 90 GiB left on a
///   terabyte) and at least 4 MiB. node_exporter's usual filesystem alert is the same shape.
///   Shown in status, the kiosk and the log, not under `missing` (nothing is refused yet, and
///   `edge status` exits 1 only for what keeps the station from working).
/// - A failure recorded for want of space or of a writable disk passes once the disk has room
///   and is writable again; an I/O error or a quota passes only with a successful write.
public struct StorageReport: Encodable, Sendable, Equatable {
    public enum State: String, Encodable, Sendable, Comparable {
        case ok, degraded, failed

        public static func < (lhs: State, rhs: State) -> Bool { lhs.rank < rhs.rank }
        private var rank: Int { self == .ok ? 0 : self == .degraded ? 1 : 2 }
    }

    public struct Place: Encodable, Sendable, Equatable {
        /// What is kept there: "database", "status file", "vault", "vault keys", "photos".
        public var holds: String
        public var directory: String
        public var state: State
        /// The cause in words, or the free space when all is well.
        public var detail: String
        /// Why it failed, when it did (`StorageProblem.Cause`: full, read-only ...).
        public var cause: String?
        public var freeBytes: UInt64?
        public var sizeBytes: UInt64?
        public var readOnly: Bool?
        /// The last write there that failed and has not been followed by one that succeeded.
        public var lastError: String?
        public var lastErrorAt: Double?
        /// The measured disk (not encoded): places on one disk are told together.
        var device: UInt64?
        var measured: String?

        enum CodingKeys: String, CodingKey {
            case holds, directory, state, detail, cause, freeBytes, sizeBytes, readOnly, lastError, lastErrorAt
        }
    }

    public var state: State
    /// One line: per disk, its state in words and what it holds.
    public var detail: String
    public var places: [Place]

    public static let fullBelowBytes: UInt64 = 1 << 20

    /// The failing disks only, as `detail` words them: the line `missing` carries.
    public var failures: String { Self.summary(places.filter { $0.state == .failed }) }

    public static func lowSpaceBytes(size: UInt64) -> UInt64 {
        max(4 << 20, min(size / 10, 1 << 30))
    }

    /// The station's own places; a capability adds its own (`StorageMonitor.watch`: photos).
    public static func places(_ paths: StationPaths) -> [(holds: String, directory: String)] {
        [("database", PosixFile.directoryName(paths.database)), ("status file", paths.stateDirectory),
         ("vault", paths.vaultDirectory), ("vault keys", paths.vaultKeyDirectory)]
    }

    /// Measures each place now and weighs the failures recorded for it.
    public static func assess(_ places: [(holds: String, directory: String)], failures: [String: StorageFailure],
                              measure: (String) -> StorageSpace? = StorageSpace.measure) -> StorageReport {
        var measured: [String: StorageSpace?] = [:]
        let assessed = places.map { place -> Place in
            let space = measured[place.directory] ?? measure(place.directory)
            measured[place.directory] = space
            return assess(place.holds, place.directory, space: space, failure: failures[place.holds])
        }
        return StorageReport(state: assessed.map(\.state).max() ?? .ok, detail: summary(assessed), places: assessed)
    }

    /// Whether a recorded failure still stands, given what the disk shows now.
    public static func stands(_ failure: StorageFailure, space: StorageSpace?) -> Bool {
        guard failure.cause.clearsWithSpace, let space else { return true }
        return space.readOnly || space.freeBytes < fullBelowBytes || space.freeFiles == 0
    }

    static func assess(_ holds: String, _ directory: String, space: StorageSpace?, failure: StorageFailure?) -> Place {
        var place = Place(holds: holds, directory: directory, state: .ok, detail: "", cause: nil, freeBytes: space?.freeBytes, sizeBytes: space?.sizeBytes,
                          readOnly: space?.readOnly, lastError: nil, lastErrorAt: nil, device: space?.device, measured: space?.directory)
        let standing = failure.flatMap { stands($0, space: space) ? $0 : nil }
        place.lastError = standing?.message
        place.lastErrorAt = standing?.since
        if let space, space.readOnly {
            place.state = .failed
            place.cause = StorageProblem.Cause.readOnly.rawValue
            place.detail = StorageProblem(.readOnly, directory: directory).words
        } else if let space, space.freeBytes < fullBelowBytes || space.freeFiles == 0 {
            let cause: StorageProblem.Cause = space.freeBytes >= fullBelowBytes ? .noFreeFiles : .full
            place.state = .failed
            place.cause = cause.rawValue
            place.detail = StorageProblem(cause, directory: directory, freeBytes: space.freeBytes).words
        } else if let standing {
            place.state = .failed
            place.cause = standing.cause.rawValue
            place.detail = standing.words
        } else if let space, space.freeBytes < lowSpaceBytes(size: space.sizeBytes) {
            place.state = .degraded
            place.detail = "the disk holding \(directory) is low on space: \(StorageSpace.text(bytes: space.freeBytes)) free of "
                + "\(StorageSpace.text(bytes: space.sizeBytes)) (warns below \(StorageSpace.text(bytes: lowSpaceBytes(size: space.sizeBytes))))"
        } else if let space {
            place.detail = "\(StorageSpace.text(bytes: space.freeBytes)) free of \(StorageSpace.text(bytes: space.sizeBytes)) on the disk holding \(directory)"
        } else {
            place.detail = "the disk holding \(directory) could not be measured"
        }
        return place
    }

    /// Per disk (and per state and cause on it), the words of its first place with every place
    /// it holds: "the disk holding /var/lib/edge is full: 0 bytes free (database, status file, vault)".
    static func summary(_ places: [Place]) -> String {
        var groups: [(key: String, first: Place, holds: [String])] = []
        // The shortest directory of a disk names it (the state directory rather than the vault in it).
        for place in places.sorted(by: { $0.directory.count < $1.directory.count }) {
            let key = "\(place.device.map(String.init) ?? place.directory)|\(place.state.rawValue)|\(place.cause ?? "")"
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].holds.append(place.holds)
            } else {
                groups.append((key, place, [place.holds]))
            }
        }
        // The worst first, so the line starts with what needs doing.
        groups.sort { $0.first.state > $1.first.state }
        return groups.map { "\($0.first.detail) (\($0.holds.joined(separator: ", ")))" }.joined(separator: "; ")
    }
}
