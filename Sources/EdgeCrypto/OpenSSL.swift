/// The one place OpenSSL return codes become `CryptoError`s, so every call site checks the same
/// way and every failure carries the C function name and OpenSSL's own error string.
enum OpenSSL {
    /// libcrypto, loaded on first use; a `.libraryFailure` naming the soname and the Debian
    /// package when it cannot be loaded.
    static var library: LibCrypto {
        get throws(CryptoError) { try LibCrypto.shared.get() }
    }

    /// For the few entry points that cannot throw (SHA256.hash, constant-time `==`): without
    /// libcrypto they cannot give a right answer, so the process stops with the loader's reason,
    /// as it already does when EVP_Digest fails. libcrypto is a dependency of the package, so
    /// this is a broken installation, not a runtime condition.
    static var essentialLibrary: LibCrypto {
        switch LibCrypto.shared {
        case .success(let library):
            return library
        case .failure(let error):
            fatalError("\(error.message) (\(error.context["dlerror"] ?? error.context["symbol"] ?? "unknown"))")
        }
    }

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
    /// make an unbounded context string. Every caller has just used libcrypto, so it is loaded;
    /// if not, there is no queue to read.
    static func drainErrors() -> String {
        guard case .success(let library) = LibCrypto.shared else { return "OpenSSL is not loaded" }
        var lines: [String] = []
        while case let code = library.errGetError(), code != 0 {
            if lines.count < 8 { lines.append(errorString(code, library)) }
        }
        return lines.isEmpty ? "no OpenSSL error queued" : lines.joined(separator: " | ")
    }

    /// ERR_error_string_n into a stack buffer (256 bytes is OpenSSL's documented minimum).
    private static func errorString(_ code: UInt, _ library: LibCrypto) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { buf in
            if let base = buf.baseAddress { library.errErrorStringN(code, base, buf.count) }
        }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
    }
}
