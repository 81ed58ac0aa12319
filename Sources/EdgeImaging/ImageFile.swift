import EdgeCore

/// Reads a whole image file with a size cap through the one POSIX file seam (`PosixFile`),
/// turning its errors into `ImageError`s that name the file.
enum ImageFile {
    static func readAll(path: String, maxBytes: Int) throws(ImageError) -> [UInt8] {
        do {
            return try PosixFile.readAll(path: path, maxBytes: maxBytes)
        } catch {
            switch error.code {
            case .notFound: throw ImageError(.notFound, path: path, reason: "no such file")
            case .isDirectory: throw ImageError(.unreadableFile, path: path, reason: "is a directory, not an image file")
            case .tooLarge:
                throw ImageError(.tooLarge, path: path, reason: "file is larger than the \(maxBytes)-byte limit")
            case .notRegular, .storage, .failed: throw ImageError(.unreadableFile, path: path, reason: error.context["reason"] ?? "cannot be read")
            }
        }
    }
}
