import Glibc

/// The heap block behind `SecureBytes`. A class so the block has one owner whose `deinit`
/// wipes it (explicit_bzero, which the optimiser may not remove) before freeing.
///
/// Decision: libc's explicit_bzero rather than OPENSSL_cleanse (same guarantee, as EdgeTPM's
/// `Zeroize`), so releasing secret bytes never loads libcrypto (it is dlopen'ed on first use,
/// see `LibCrypto`) and cannot fail in a `deinit`.
///
/// Decision (issue #16): each block is its own anonymous mapping, marked MADV_DONTDUMP, so a
/// core file never holds it even when the process is dumpable; freed with munmap after the wipe.
/// A mapping of its own (not heap pages) because madvise works on whole pages and would split the
/// heap's mapping around every secret. A page per secret is cheap: edge holds a handful. When
/// mmap or madvise fails (the MemoryMax= ceiling, an old kernel) the block falls back to the heap
/// or stays dumpable: the process-wide PR_SET_DUMPABLE 0 (`DumpProtection`) still covers it, and
/// refusing to hold a secret over a missing dump flag would stop the station.
///
/// `@unchecked Sendable`: the bytes are only written while the storage is uniquely referenced
/// (`SecureBytes` copies on write), so shared instances are read-only.
final class SecureBytesStorage: @unchecked Sendable {
    let count: Int
    /// Never NULL, even for 0 bytes, so buffers handed to OpenSSL always have a base address.
    private let pointer: UnsafeMutableRawPointer
    /// Bytes mapped with mmap (a whole number of pages); 0 when the block is on the heap.
    private let mappedLength: Int
    /// Whether MADV_DONTDUMP took effect (tests check it through `/proc/self/smaps`).
    let excludedFromDumps: Bool

    private static let pageSize = Swift.max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    /// Zero-filled (fresh anonymous pages are zero; the heap fallback is cleared).
    init(count: Int) {
        precondition(count >= 0, "SecureBytes count must not be negative")
        self.count = count
        let length = (Swift.max(count, 1) + Self.pageSize - 1) / Self.pageSize * Self.pageSize
        let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        if let mapped, mapped != MAP_FAILED {
            pointer = mapped
            mappedLength = length
            excludedFromDumps = (try? DumpProtection.excludeFromDumps(mapped, length: length)) != nil
        } else {
            pointer = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: Swift.max(count, 1))
            mappedLength = 0
            excludedFromDumps = false
        }
    }

    /// Where the block starts, for tests that look it up in `/proc/self/smaps`.
    var address: UInt { UInt(bitPattern: pointer) }

    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 { pointer.copyMemory(from: base, byteCount: bytes.count) }
    }

    deinit {
        cleanse()
        if mappedLength > 0 {
            // munmap of our own mapping fails only on invalid arguments; the bytes are wiped already.
            _ = munmap(pointer, mappedLength)
        } else {
            pointer.deallocate()
        }
    }

    func copy() -> SecureBytesStorage {
        SecureBytesStorage(copying: UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Overwrites with zeros in a way the compiler cannot elide.
    func cleanse() {
        SecureWipe.wipe(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }

    // `self` is alive for the whole call, so the pointer cannot dangle inside `body`.
    func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: pointer, count: count))
    }
}
