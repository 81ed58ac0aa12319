import EdgeCore

/// Why an image could not be loaded, in the project's one error shape: a machine-readable
/// `code`, the file it concerns, and a one-line reason for people.
///
/// `message` (also `description`) is `"<path>: <reason>"` on a single line, ready to print as
/// the per-file error of a scan run (SCN-9, SCN-10). Control characters in the path or in
/// library messages are escaped so a hostile file name cannot forge extra output lines.
public typealias ImageError = CodedError<ImageErrorCode>

/// What went wrong, coarse enough for callers to branch on (exit codes, retry, skip).
public enum ImageErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The path does not exist.
    case notFound = "not-found"
    /// The path exists but cannot be read as a file: a directory, no permission, an I/O error.
    case unreadableFile = "unreadable-file"
    /// The file or buffer has zero bytes.
    case empty
    /// The bytes are not PNG, JPEG or PNM, or use a variant of those that is not supported.
    case unsupportedFormat = "unsupported-format"
    /// The data ends before the image does.
    case truncated
    /// The data is damaged or self-contradictory.
    case corrupt
    /// The file, or the pixel count its header claims, exceeds `ImageLimits`.
    case tooLarge = "too-large"
    /// The decoding library failed for a reason unrelated to the data (e.g. out of memory).
    case decoderFailure = "decoder-failure"
}

extension CodedError where Code == ImageErrorCode {
    /// `message` is `"<path>: <reason>"`; `context` holds `path` and `reason` separately.
    public init(_ code: ImageErrorCode, path: String, reason: String) {
        let line = Self.oneLine(reason)
        self.init(code, "\(Self.oneLine(path)): \(line)", context: ["path": path, "reason": line])
    }

    /// The file path, or the name given with in-memory data.
    public var path: String { context["path"] ?? "" }
    /// One line, without the path: "not a PNG/JPEG/PNM image".
    public var reason: String { context["reason"] ?? message }

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
