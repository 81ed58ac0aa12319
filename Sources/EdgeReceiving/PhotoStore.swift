import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeImaging
import EdgeStore
import FoundationEssentials
import Glibc
import GRDB

/// Photo evidence on disk and in the database (RCV-2): each JPEG once, as `<directory>/<sha256>.jpg`,
/// with a row saying whether the backend has it. A photo stays until every GRN it is attached to
/// has been applied (or lost a conflict) and the retention has passed; `purge` then removes a
/// bounded number per call, so a long backlog is cleared over several runs, never in one stall.
public struct PhotoStore: Sendable {
    /// Rows and files purged per call at most.
    public static let purgeBatch = 50

    public let directory: String
    public let database: EdgeDatabase

    public init(directory: String, database: EdgeDatabase) {
        self.directory = directory
        self.database = database
    }

    /// Encodes `image` as JPEG and writes it under its hash (nothing is written twice). The row
    /// is added by `record(_:_:now:)` in the transaction that attaches it to a GRN.
    public func write(_ image: GrayImage) throws(ReceivingError) -> StoredPhoto {
        let jpeg: [UInt8]
        do {
            jpeg = try JPEGEncoder.encode(image)
        } catch {
            throw ReceivingError(.photoFailed, "The photo could not be encoded as JPEG: \(error.reason)")
        }
        guard jpeg.count <= GRNPhotoReceipt.maxBytes else {
            throw ReceivingError(.photoFailed, "The photo is \(jpeg.count) bytes as JPEG; at most \(GRNPhotoReceipt.maxBytes) are accepted.",
                                 context: ["bytes": String(jpeg.count)])
        }
        let sha = Self.hex(SHA256.hash(jpeg))
        let path = self.path(sha)
        if access(path, F_OK) != 0 {
            do {
                try createDirectory()
                try PosixFile.writeAtomically(jpeg, to: path, mode: 0o640, suffix: String(UInt32.random(in: 0...UInt32.max)))
            } catch {
                // The disk's cause in words (issue #30): "cannot write /…/photos/ab12….jpg: the disk holding … is full: 0 bytes free".
                throw ReceivingError(.storeFailed, "The photo could not be saved: \(error.message)", context: error.context.merging(["directory": directory]) { $1 })
            }
        }
        return StoredPhoto(sha256: sha, bytes: jpeg.count, width: image.width, height: image.height)
    }

    /// The photo's row, inside the caller's transaction (a photo taken twice stays one row).
    public func record(_ db: Database, _ photo: StoredPhoto, now: Double) throws {
        try db.execute(sql: """
            INSERT INTO receiving_photos (sha256, bytes, width, height, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(sha256) DO NOTHING
            """, arguments: [photo.sha256, photo.bytes, photo.width, photo.height, now, now])
    }

    /// The JPEG, checked against its name: a damaged file is an error, never uploaded.
    public func read(_ sha256: String) throws(ReceivingError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try PosixFile.readAll(path: path(sha256), maxBytes: GRNPhotoReceipt.maxBytes, allowSpecial: false, followLinks: false)
        } catch {
            throw ReceivingError(.photoFailed, "Photo \(sha256.prefix(12)) could not be read: \(error.message)", context: ["sha256": sha256])
        }
        guard Self.hex(SHA256.hash(bytes)) == sha256 else {
            throw ReceivingError(.photoFailed, "Photo \(sha256.prefix(12)) on disk no longer matches its hash.", context: ["sha256": sha256])
        }
        return bytes
    }

    /// Photos not yet uploaded whose next attempt is due, oldest first (one scheduled further
    /// ahead than anything is, `ScheduledWait`, is due: the clock went back).
    public func due(now: Double, limit: Int = 20) throws(ReceivingError) -> [StoredPhoto] {
        try perform("list photos to upload") {
            try database.dbWriter.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT * FROM receiving_photos WHERE uploaded_at IS NULL AND (next_attempt_at <= ? OR next_attempt_at > ?)
                    ORDER BY created_at LIMIT ?
                    """, arguments: [now, now + ScheduledWait.longest, max(1, min(limit, 100))]).map(Self.photo)
            }
        }
    }

    public func photo(_ sha256: String) throws(ReceivingError) -> StoredPhoto? {
        try perform("read a photo") {
            try database.dbWriter.read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM receiving_photos WHERE sha256 = ?", arguments: [sha256]).map(Self.photo)
            }
        }
    }

    public func markUploaded(_ sha256: String, now: Double) throws(ReceivingError) {
        try perform("record an upload") {
            try database.dbWriter.write { db in
                try db.execute(sql: "UPDATE receiving_photos SET uploaded_at = ?, last_error = NULL WHERE sha256 = ?", arguments: [now, sha256])
            }
        }
    }

    /// Schedules the next attempt; the photo is kept whatever the failure.
    public func markFailed(_ sha256: String, error: String, nextAttemptAt: Double) throws(ReceivingError) {
        try perform("record an upload failure") {
            try database.dbWriter.write { db in
                try db.execute(sql: """
                    UPDATE receiving_photos SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE sha256 = ?
                    """, arguments: [error, nextAttemptAt, sha256])
            }
        }
    }

    /// Failed attempts so far (for the backoff).
    public func attempts(_ sha256: String) throws(ReceivingError) -> Int {
        try perform("read upload attempts") {
            try database.dbWriter.read { db in
                try Int.fetchOne(db, sql: "SELECT attempts FROM receiving_photos WHERE sha256 = ?", arguments: [sha256]) ?? 0
            }
        }
    }

    /// Removes up to `purgeBatch` photos that are uploaded and whose GRNs were all applied or
    /// lost a conflict more than `retention` seconds ago. A photo of a GRN still queued or
    /// dead-lettered (it may be re-queued) stays. Returns the hashes removed.
    @discardableResult
    public func purge(now: Double, retention: Double) throws(ReceivingError) -> [String] {
        let hashes: [String] = try perform("purge photos") {
            try database.dbWriter.write { db in
                let hashes = try String.fetchAll(db, sql: """
                    SELECT p.sha256 FROM receiving_photos p
                    WHERE p.uploaded_at IS NOT NULL
                      AND EXISTS (SELECT 1 FROM receiving_grn_photos l WHERE l.sha256 = p.sha256)
                      AND NOT EXISTS (SELECT 1 FROM receiving_grn_photos l JOIN receiving_grns g ON g.idempotency_key = l.idempotency_key
                                      WHERE l.sha256 = p.sha256
                                        AND (g.status NOT IN ('applied', 'conflict') OR g.settled_at IS NULL OR g.settled_at > ?))
                    ORDER BY p.created_at LIMIT ?
                    """, arguments: [now - retention, Self.purgeBatch])
                for sha in hashes {
                    try db.execute(sql: "DELETE FROM receiving_grn_photos WHERE sha256 = ?", arguments: [sha])
                    try db.execute(sql: "DELETE FROM receiving_photos WHERE sha256 = ?", arguments: [sha])
                }
                return hashes
            }
        }
        // After the commit: a crash in between leaves a file without a row, which `write` would
        // reuse and nothing reads; never a row without its file.
        for sha in hashes { unlink(path(sha)) }
        return hashes
    }

    public func path(_ sha256: String) -> String { directory + "/" + sha256 + ".jpg" }

    private func createDirectory() throws(PosixFileError) {
        if mkdir(directory, 0o750) != 0 && errno != EEXIST {
            throw PosixFile.failure(errno, doing: "create the directory", path: directory)
        }
    }

    static func photo(_ row: Row) -> StoredPhoto {
        StoredPhoto(sha256: row["sha256"], bytes: row["bytes"], width: row["width"], height: row["height"], uploadedAt: row["uploaded_at"])
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var out = ""
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return out
    }

    private func perform<T>(_ action: String, _ body: () throws -> T) throws(ReceivingError) -> T {
        do {
            return try body()
        } catch {
            throw ReceivingError(.storeFailed, "The station's database failed to \(action).",
                                 context: ["path": database.path, "error": String(describing: error)])
        }
    }
}
