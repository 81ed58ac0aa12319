import CLibCrypto

/// The one place OpenSSL return codes become `CryptoError`s, so every call site checks the same
/// way and every failure carries the C function name and OpenSSL's own error string.
enum OpenSSL {
    /// Most OpenSSL functions return 1 on success and 0 or a negative value on failure.
    static func check(_ result: Int32, _ function: StaticString, _ message: @autoclosure () -> String) throws(CryptoError) {
        guard result == 1 else { throw failure(function, message()) }
    }

    /// For constructors (EVP_CIPHER_CTX_new, EVP_KDF_fetch, …) that return NULL on failure.
    static func nonNull<T>(_ pointer: T?, _ function: StaticString, _ message: @autoclosure () -> String) throws(CryptoError) -> T {
        guard let pointer else { throw failure(function, message()) }
        return pointer
    }

    /// A `.libraryFailure` naming `function` and carrying the thread's OpenSSL error queue
    /// (ERR_get_error / ERR_error_string_n), which it drains so the next failure starts clean.
    /// OpenSSL's strings name algorithms and reasons, never key or data bytes.
    static func failure(_ function: StaticString, _ message: String) -> CryptoError {
        CryptoError(.libraryFailure, message, context: ["function": "\(function)", "openssl": drainErrors()])
    }

    /// Reads and clears the thread's error queue. Bounded so a flood of queued errors cannot
    /// make an unbounded context string.
    static func drainErrors() -> String {
        var lines: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            if lines.count < 8 { lines.append(errorString(code)) }
        }
        return lines.isEmpty ? "no OpenSSL error queued" : lines.joined(separator: " | ")
    }

    /// ERR_error_string_n into a stack buffer (256 bytes is OpenSSL's documented minimum).
    private static func errorString(_ code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { buf in
            if let base = buf.baseAddress { ERR_error_string_n(code, base, buf.count) }
        }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
