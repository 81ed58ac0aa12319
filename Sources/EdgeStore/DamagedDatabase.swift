import EdgeCore
import FoundationEssentials
import Glibc

/// A database file that was found damaged at start and moved aside (issue #30 item 3, AGT-11):
/// kept beside the database as `<name>.damaged-<UTC time>`, with its `-wal` and `-shm` under the
/// same name (so SQLite still reads it as one database), and a note `<that>.json` saying when and
/// why, and, once `edge sync salvage` has run on it, what was re-queued.
///
/// Decision: the files themselves are the record, not a row in the fresh database. Status lists
/// them as long as they are there, across restarts, whichever process asks, and an operator ends
/// the notice by archiving or deleting the file once it is salvaged.
public struct DamagedDatabase: Sendable, Codable, Equatable {
    /// What `edge sync salvage` recovered from it.
    public struct Salvage: Sendable, Codable, Equatable {
        /// Unix seconds.
        public var at: Double
        public var requeued: Int
        public var deadLetters: Int
        public var alreadyPresent: Int
        public var unreadable: Int

        public init(at: Double, requeued: Int, deadLetters: Int, alreadyPresent: Int, unreadable: Int) {
            self.at = at
            self.requeued = requeued
            self.deadLetters = deadLetters
            self.alreadyPresent = alreadyPresent
            self.unreadable = unreadable
        }

        enum CodingKeys: String, CodingKey {
            case at, requeued
            case deadLetters = "dead_letters"
            case alreadyPresent = "already_present"
            case unreadable
        }
    }

    /// The moved file (its companions are this plus `-wal` / `-shm`). Not stored in the note: the
    /// state directory may be moved or restored elsewhere.
    public var path: String
    /// Unix seconds.
    public var movedAt: Double
    /// Why it was moved, in words (the store's error).
    public var reason: String
    public var salvage: Salvage?

    public init(path: String, movedAt: Double, reason: String, salvage: Salvage? = nil) {
        self.path = path
        self.movedAt = movedAt
        self.reason = reason
        self.salvage = salvage
    }

    enum CodingKeys: String, CodingKey {
        case movedAt = "moved_at"
        case reason, salvage
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = ""
        movedAt = try container.decode(Double.self, forKey: .movedAt)
        reason = try container.decode(String.self, forKey: .reason)
        salvage = try container.decodeIfPresent(Salvage.self, forKey: .salvage)
    }

    public static let marker = ".damaged-"
    /// A note is a few hundred bytes; anything larger is not one of ours.
    static let maxNoteBytes = 64 * 1024

    /// The note beside the moved file.
    public var notePath: String { Self.notePath(path) }

    static func notePath(_ file: String) -> String { file + ".json" }

    /// The moved-aside files beside `database`, oldest first. A file without a readable note (an
    /// older edge's, or a note lost with a crash) is listed with the time its name carries.
    public static func list(beside database: String) -> [DamagedDatabase] {
        let directory = PosixFile.directoryName(database)
        let base = baseName(database)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { isMovedName($0, base: base) }.sorted().map { name in
            let path = directory + "/" + name
            if var noted = read(note: notePath(path)) {
                noted.path = path
                return noted
            }
            return DamagedDatabase(path: path, movedAt: time(inName: name, base: base) ?? 0,
                                   reason: "found damaged at start (no note beside it)")
        }
    }

    /// The note of `file`, if it has a readable one.
    public static func read(note path: String) -> DamagedDatabase? {
        guard let bytes = try? PosixFile.readAll(path: path, maxBytes: maxNoteBytes, allowSpecial: false) else { return nil }
        return try? JSONDecoder().decode(DamagedDatabase.self, from: Data(bytes))
    }

    /// Writes the note (durably: it is the reason an operator reads later).
    func writeNote() throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let bytes = Array(try encoder.encode(self))
            try PosixFile.writeAtomically(bytes, to: notePath, mode: 0o600)
        } catch let error as PosixFileError {
            throw StoreError(.openFailed, "Could not write the note beside the damaged database \(path): \(error.message).",
                             context: ["path": notePath])
        } catch {
            throw StoreError(.openFailed, "Could not write the note beside the damaged database \(path).", context: ["path": notePath])
        }
    }

    /// `name` is `<base>.damaged-YYYYMMDDTHHMMSSZ` or that with `-N` (a second move in the same
    /// second); not its `-wal`, `-shm` or note.
    static func isMovedName(_ name: String, base: String) -> Bool {
        guard name.hasPrefix(base + marker) else { return false }
        let rest = Array(name.utf8.dropFirst(base.utf8.count + marker.utf8.count))
        guard rest.count >= 16, isStamp(Array(rest[0..<16])) else { return false }
        let tail = rest[16...]
        if tail.isEmpty { return true }
        guard tail.first == UInt8(ascii: "-"), tail.count >= 2 else { return false }
        return tail.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// `YYYYMMDDTHHMMSSZ`.
    private static func isStamp(_ bytes: [UInt8]) -> Bool {
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 8: guard byte == UInt8(ascii: "T") else { return false }
            case 15: guard byte == UInt8(ascii: "Z") else { return false }
            default: guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return false }
            }
        }
        return true
    }

    /// The UTC stamp of a moved file's name: `20250307T142501Z`.
    static func stamp(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func time(inName name: String, base: String) -> Double? {
        let digits = Array(name.utf8.dropFirst(base.utf8.count + marker.utf8.count).prefix(16))
        func number(_ range: Range<Int>) -> Int32 { Int32(String(decoding: digits[range], as: UTF8.self)) ?? 0 }
        var parts = tm()
        parts.tm_year = number(0..<4) - 1900
        parts.tm_mon = number(4..<6) - 1
        parts.tm_mday = number(6..<8)
        parts.tm_hour = number(9..<11)
        parts.tm_min = number(11..<13)
        parts.tm_sec = number(13..<15)
        let seconds = timegm(&parts)
        return seconds < 0 ? nil : Double(seconds)
    }

    static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
