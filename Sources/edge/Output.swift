import Glibc

/// Writing lines to stdout/stderr, with terminal-safe text for humans.
///
/// Plain write(2) rather than Foundation's FileHandle: the executable stays on
/// FoundationEssentials, which starts ~5 ms faster (SCN-12).
enum Output {
    static func stdout(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }

    static func stderr(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

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
    static func printable(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x20..<0x7F, 0xA0...:
                if scalar == "\\" || scalar == "\"" { out += "\\" }
                out.unicodeScalars.append(scalar)
            default:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return out
    }
}
