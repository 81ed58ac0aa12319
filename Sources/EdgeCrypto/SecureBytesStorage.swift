import Glibc

/// The heap block behind `SecureBytes`. A class so the block has one owner whose `deinit`
/// wipes it (explicit_bzero, which the optimiser may not remove) before freeing.
///
/// Decision: libc's explicit_bzero rather than OPENSSL_cleanse (same guarantee, as EdgeTPM's
/// `Zeroize`), so releasing secret bytes never loads libcrypto (it is dlopen'ed on first use,
/// see `LibCrypto`) and cannot fail in a `deinit`.
///
/// `@unchecked Sendable`: the bytes are only written while the storage is uniquely referenced
/// (`SecureBytes` copies on write), so shared instances are read-only.
final class SecureBytesStorage: @unchecked Sendable {
    let count: Int
    /// Never NULL, even for 0 bytes, so buffers handed to OpenSSL always have a base address.
    private let pointer: UnsafeMutableRawPointer

    /// Zero-filled.
    init(count: Int) {
        precondition(count >= 0, "SecureBytes count must not be negative")
        self.count = count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(count, 1))
    }

    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    deinit {
        cleanse()
        pointer.deallocate()
    }

    func copy() -> SecureBytesStorage {
        SecureBytesStorage(copying: UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Overwrites with zeros in a way the compiler cannot elide.
    func cleanse() {
        guard count > 0 else { return }
        explicit_bzero(pointer, count)
    }

    // `self` is alive for the whole call, so the pointer cannot dangle inside `body`.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }
}
