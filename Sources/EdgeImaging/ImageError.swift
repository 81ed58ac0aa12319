/// Why an image could not be loaded: a machine-readable `code`, the file it concerns, and a
/// one-line reason for people.
///
/// `message` (also `description`) is `"<path>: <reason>"` on a single line, ready to print as
/// the per-file error of a scan run (SCN-9, SCN-10). Control characters in the path or in
/// library messages are escaped so a hostile file name cannot forge extra output lines.
public struct ImageError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, coarse enough for callers to branch on (exit codes, retry, skip).
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// The path does not exist.
        case notFound
        /// The path exists but cannot be read as a file: a directory, no permission, an I/O error.
        case unreadableFile
        /// The file or buffer has zero bytes.
        case empty
        /// The bytes are not PNG, JPEG or PNM, or use a variant of those that is not supported.
        case unsupportedFormat
        /// The data ends before the image does.
        case truncated
        /// The data is damaged or self-contradictory.
        case corrupt
        /// The file, or the pixel count its header claims, exceeds `ImageLimits`.
        case tooLarge
        /// The decoding library failed for a reason unrelated to the data (e.g. out of memory).
        case decoderFailure
    }

    public let code: Code
    /// The file path, or the name given with in-memory data.
    public let path: String
    /// One line, without the path: "not a PNG/JPEG/PNM image".
    public let reason: String

    public init(_ code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = ImageError.oneLine(reason)
    }

    /// `"<path>: <reason>"`, one line.
    public var message: String { "\(ImageError.oneLine(path)): \(reason)" }

    public var description: String { message }

    /// Escapes control characters (newlines included) so the text stays on one line.
    static func oneLine(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}" {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
