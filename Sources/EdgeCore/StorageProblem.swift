import Glibc

/// Why the disk refused a write, in the words an operator acts on (issue #30 item 1): "the disk
/// holding /var/lib/edge is full: 0 bytes free", "/var/lib/edge is on a read-only file system".
/// Every writer (the database, the vault, photos, the status file, exports) words its failure
/// through this, from an errno or, for SQLite, which reports none, from the disk itself.
public struct StorageProblem: Sendable, Hashable, Codable {
    public enum Cause: String, Sendable, Hashable, Codable {
        case full
        /// No inodes left: no new file fits although bytes are free.
        case noFreeFiles = "no-free-files"
        case quota
        case readOnly = "read-only"
        case ioError = "io-error"
        case missingDirectory = "missing-directory"
        case permissionDenied = "permission-denied"

        /// Causes that pass without anyone acting on the station's files: space freed, a file
        /// system remounted read-write. The others need a successful write to be known gone.
        public var clearsWithSpace: Bool { self == .full || self == .noFreeFiles || self == .readOnly }
    }

    public let cause: Cause
    /// The directory whose disk refused (the file's directory).
    public let directory: String
    /// Free bytes on that disk when it refused, when they could be measured.
    public let freeBytes: UInt64?

    public init(_ cause: Cause, directory: String, freeBytes: UInt64? = nil) {
        self.cause = cause
        self.directory = directory
        self.freeBytes = freeBytes
    }

    /// One clause, lower case, no final stop: it ends a sentence that names what was written.
    public var words: String {
        let free = freeBytes.map { StorageSpace.text(bytes: $0) + " free" }
        switch cause {
        case .full: return "the disk holding \(directory) is full" + (free.map { ": \($0)" } ?? "")
        case .noFreeFiles: return "the disk holding \(directory) has no room for new files (no free inodes)" + (free.map { ", \($0)" } ?? "")
        case .quota: return "the disk quota for \(directory) is used up"
        case .readOnly: return "\(directory) is on a read-only file system"
        case .ioError: return "the disk holding \(directory) reported an input/output error"
        case .missingDirectory: return "the directory \(directory) does not exist"
        case .permissionDenied: return "this user (uid \(geteuid())) may not write in \(directory)"
        }
    }

    /// What an error's context carries of it.
    public var context: [String: String] {
        var context = ["cause": cause.rawValue, "directory": directory]
        if let freeBytes { context["freeBytes"] = String(freeBytes) }
        return context
    }

    /// The problem an error carries in its context (`context` above), so a caller that gets a
    /// module's error (a StoreError, a VaultError) can tell the disk's failures from the rest.
    public init?(context: [String: String]) {
        guard let cause = context["cause"].flatMap(Cause.init(rawValue:)), let directory = context["directory"] else { return nil }
        self.init(cause, directory: directory, freeBytes: context["freeBytes"].flatMap { UInt64($0) })
    }

    /// The problem behind `errno` from a write, create, rename or fsync of `path`; nil when the
    /// errno is not the disk's (a bad descriptor, an interrupted call ...).
    public static func diagnose(errno code: Int32, path: String) -> StorageProblem? {
        let directory = PosixFile.directoryName(path)
        let space = StorageSpace.measure(directory)
        switch code {
        case ENOSPC:
            if let space, space.freeFiles == 0, space.freeBytes > 0 {
                return StorageProblem(.noFreeFiles, directory: directory, freeBytes: space.freeBytes)
            }
            return StorageProblem(.full, directory: directory, freeBytes: space?.freeBytes)
        case EDQUOT: return StorageProblem(.quota, directory: directory, freeBytes: space?.freeBytes)
        case EROFS: return StorageProblem(.readOnly, directory: directory)
        case EIO: return StorageProblem(.ioError, directory: directory)
        case ENOENT, ENOTDIR:
            return directoryExists(directory) ? nil : StorageProblem(.missingDirectory, directory: directory)
        case EACCES, EPERM: return StorageProblem(.permissionDenied, directory: directory)
        default: return nil
        }
    }

    /// For a writer that failed without an errno (SQLite's "disk full", "I/O error", "read-only",
    /// "cannot open"): looks at the disk holding `path` to tell which. `likely` is what the writer
    /// said; it is the answer when the disk shows nothing else.
    ///
    /// Decision: below 64 KiB free a failed write is taken for a full disk whatever the writer
    /// said (SQLite reports a short write as an I/O error); a read-only file system is always
    /// named as such.
    public static func examine(path: String, likely: Cause?) -> StorageProblem? {
        let directory = PosixFile.directoryName(path)
        guard directoryExists(directory) else { return StorageProblem(.missingDirectory, directory: directory) }
        let space = StorageSpace.measure(directory)
        if let space {
            if space.readOnly { return StorageProblem(.readOnly, directory: directory) }
            if space.freeFiles == 0 && space.freeBytes > 0 && likely == .full {
                return StorageProblem(.noFreeFiles, directory: directory, freeBytes: space.freeBytes)
            }
            if likely == .full || space.freeBytes < 64 * 1024 || space.freeFiles == 0 {
                return StorageProblem(.full, directory: directory, freeBytes: space.freeBytes)
            }
        }
        if access(directory, W_OK) != 0 && (errno == EACCES || errno == EPERM) {
            return StorageProblem(.permissionDenied, directory: directory)
        }
        return likely.map { StorageProblem($0, directory: directory, freeBytes: space?.freeBytes) }
    }

    private static func directoryExists(_ directory: String) -> Bool {
        var info = stat()
        return stat(directory, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
