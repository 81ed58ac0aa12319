import Foundation

/// Damage done to a real SQLite file the way disks and people do it (issue #30 item 3), for the
/// store, agent and CLI tests. Each works on the closed file; fold the WAL into it first
/// (`PRAGMA wal_checkpoint(TRUNCATE)`) when the damage must hit rows that were written.
public enum DatabaseDamage {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Cuts the file at the page boundary nearest `fraction` of its size (a copy or a write cut
    /// short by a power loss). SQLite then finds pages missing past the end.
    @discardableResult
    public static func truncate(_ path: String, fraction: Double) throws -> Int {
        let size = try fileSize(path)
        let page = try pageSize(path)
        let kept = max(page, Int(Double(size) * fraction) / page * page)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(kept))
        try handle.close()
        return kept
    }

    /// Cuts the last `pages` pages off the file (a write cut short at its end), whatever the
    /// schema's size before the data: a fraction of the file would cut nothing but data pages on
    /// a station whose schema grew.
    @discardableResult
    public static func truncate(_ path: String, droppingPages pages: Int) throws -> Int {
        let size = try fileSize(path)
        let page = try pageSize(path)
        let kept = max(page, (size / page - pages) * page)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(kept))
        try handle.close()
        return kept
    }

    /// Inverts the page-type byte of the b-tree page holding `marker` (bits flipped by a failing
    /// disk or memory): `quick_check` finds it, and the rows on that page, and only those, are
    /// unreadable. Returns the page number (1-based, as SQLite counts).
    @discardableResult
    public static func flipPageType(_ path: String, pageHolding marker: String) throws -> Int {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let page = try pageSize(path)
        guard let found = bytes.range(of: Data(marker.utf8)) else {
            throw Failure(description: "\(marker) is not in \(path) (checkpoint the WAL first)")
        }
        let index = found.lowerBound / page
        // Page 1 starts with the 100-byte file header; its b-tree header follows.
        let offset = index * page + (index == 0 ? 100 : 0)
        bytes[offset] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        return index + 1
    }

    /// Puts another kind of file under the database's name (a PNG copied over it by mistake) and
    /// removes its `-wal` and `-shm`.
    public static func replaceWithPNG(_ path: String) throws {
        for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + companion) }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: PackageFiles.path("samples/po-code128.png"), toPath: path)
    }

    /// How many times `marker` occurs in the file (rows of a test's own making).
    public static func occurrences(of marker: String, in path: String) throws -> Int {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var count = 0
        var start = bytes.startIndex
        while let found = bytes.range(of: Data(marker.utf8), in: start..<bytes.endIndex) {
            count += 1
            start = found.upperBound
        }
        return count
    }

    static func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }

    /// The page size from the file header (bytes 16-17, big-endian; 1 means 65536).
    static func pageSize(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 100) ?? Data()
        guard header.count == 100, header.starts(with: Data("SQLite format 3\0".utf8)) else {
            throw Failure(description: "\(path) is not a SQLite file")
        }
        let value = Int(header[16]) << 8 | Int(header[17])
        return value == 1 ? 65536 : value
    }
}
