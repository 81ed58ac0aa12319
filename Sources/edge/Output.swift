import FoundationEssentials
import Glibc

/// Writing lines to stdout/stderr, with terminal-safe text for humans.
///
/// Plain write(2) rather than Foundation's FileHandle: the executable stays on
/// FoundationEssentials, which starts ~5 ms faster (SCN-12).
enum Output {
    static func stdout(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }

    static func stderr(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    /// One JSON document on one line, as every `--json` output prints it: sorted keys, slashes
    /// unescaped, so the output is stable for scripts and diffs.
    static func json(_ value: some Encodable) -> String {
        guard let data = try? jsonEncoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Raw bytes to stdout (secret values: no newline added, nothing transformed).
    static func stdoutBytes(_ bytes: UnsafeRawBufferPointer) { write(bytes, to: STDOUT_FILENO) }

    /// Writes all bytes, retrying EINTR and short writes; a closed pipe ends the output quietly.
    private static func write(_ text: String, to fd: Int32) {
        Array(text.utf8).withUnsafeBytes { write($0, to: fd) }
    }

    private static func write(_ buffer: UnsafeRawBufferPointer, to fd: Int32) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, base + offset, buffer.count - offset)
            if n > 0 { offset += n; continue }
            if n < 0 && errno == EINTR { continue }
            return
        }
    }

    /// Payloads are attacker-controlled: control characters (escape sequences, NUL, CR) are
    /// shown as \u{..} so a code cannot rewrite the operator's terminal or fake extra lines.
    /// Invisible format characters (Unicode Cf: the bidi embeddings, overrides and isolates
    /// U+202A–U+202E and U+2066–U+2069, the marks U+200E/U+200F/U+061C, zero-width U+200B, BOM
    /// U+FEFF) and the line/paragraph separators U+2028/U+2029 are escaped the same way (issue
    /// #16): shown raw they reorder or hide what the operator reads ("gpj.exe" shown as "exe.jpg").
    static func printable(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            if isShown(scalar) {
                if scalar == "\\" || scalar == "\"" { out += "\\" }
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out
    }

    private static func isShown(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20..<0x7F: return true
        case 0..<0xA0: return false
        default:
            switch scalar.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .control: return false
            default: return true
            }
        }
    }
}
