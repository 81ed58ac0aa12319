import EdgeCore
import FoundationEssentials
import Glibc

/// Writing lines to stdout/stderr, with terminal-safe text for humans.
///
/// Plain write(2) rather than Foundation's FileHandle: the executable stays on
/// FoundationEssentials, which starts ~5 ms faster (SCN-12).
public enum Output {
    public static func stdout(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }

    public static func stderr(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    /// One JSON document on one line, as every `--json` output prints it: sorted keys, slashes
    /// unescaped, so the output is stable for scripts and diffs.
    public static func json(_ value: some Encodable) -> String {
        guard let data = try? jsonEncoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static let jsonEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Raw bytes to stdout (secret values: no newline added, nothing transformed).
    public static func stdoutBytes(_ bytes: UnsafeRawBufferPointer) { write(bytes, to: STDOUT_FILENO) }

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

    /// Payloads are attacker-controlled: escaped by the rules every screen shares (DisplayText).
    public static func printable(_ s: String) -> String { DisplayText.escaped(s) }
}
