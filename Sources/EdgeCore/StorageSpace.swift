import Glibc

/// What the file system holding a directory has room for (`statvfs`), for status, metrics and
/// the words of a write error (issue #30 item 1, AGT-11).
public struct StorageSpace: Sendable, Hashable, Codable {
    /// The directory measured: the one asked about, or its nearest existing parent when it does
    /// not exist yet (a photo directory made on first use is on its parent's disk).
    public let directory: String
    /// Bytes an unprivileged writer may still use (`f_bavail`). Decision: the blocks a file system
    /// reserves for root are not counted; the agent runs as a system user and cannot use them.
    public let freeBytes: UInt64
    public let sizeBytes: UInt64
    /// Inodes (new files) still free; nil where the file system does not count them.
    public let freeFiles: UInt64?
    /// The file system or this mount of it is read-only (`ST_RDONLY`).
    public let readOnly: Bool
    /// The measured directory's device: places on one disk are reported together.
    public let device: UInt64

    public init(directory: String, freeBytes: UInt64, sizeBytes: UInt64, freeFiles: UInt64?, readOnly: Bool, device: UInt64) {
        self.directory = directory
        self.freeBytes = freeBytes
        self.sizeBytes = sizeBytes
        self.freeFiles = freeFiles
        self.readOnly = readOnly
        self.device = device
    }

    /// Measures the disk holding `directory` (or its nearest existing parent); nil when nothing on
    /// the way up can be measured.
    public static func measure(_ directory: String) -> StorageSpace? {
        var path = directory.isEmpty ? "." : directory
        while true {
            var info = statvfs()
            var node = stat()
            if statvfs(path, &info) == 0 && stat(path, &node) == 0 {
                let unit = UInt64(info.f_frsize > 0 ? info.f_frsize : info.f_bsize)
                return StorageSpace(directory: path, freeBytes: UInt64(info.f_bavail) * unit, sizeBytes: UInt64(info.f_blocks) * unit,
                                    freeFiles: info.f_files > 0 ? UInt64(info.f_favail) : nil,
                                    readOnly: info.f_flag & UInt(ST_RDONLY) != 0, device: UInt64(node.st_dev))
            }
            guard errno == ENOENT || errno == ENOTDIR else { return nil }
            let parent = PosixFile.directoryName(path)
            if parent == path { return nil }
            path = parent
        }
    }

    /// "0 bytes", "812 KiB", "3.4 MiB", "12.1 GiB": sizes as an operator reads them.
    public static func text(bytes: UInt64) -> String {
        if bytes < 1024 { return "\(bytes) byte\(bytes == 1 ? "" : "s")" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = value < 10 ? (value * 10).rounded(.down) / 10 : value.rounded(.down)
        let number = rounded == rounded.rounded(.down) ? String(Int(rounded)) : String(rounded)
        return "\(number) \(units[unit])"
    }
}
