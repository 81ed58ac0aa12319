import Foundation

/// Writing lines to stdout/stderr, with terminal-safe text for humans.
enum Output {
    static func stdout(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func stderr(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
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
