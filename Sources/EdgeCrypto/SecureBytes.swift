/// Bytes that hold secrets (keys, plaintext). The storage (pages of its own, marked
/// MADV_DONTDUMP so no core file holds them, see `SecureBytesStorage`) is wiped with
/// explicit_bzero when the last copy goes away (VLT-7); printing, `dump` and string interpolation show only
/// the byte count. Value semantics with copy-on-write; `==` is constant-time.
///
/// Not locked in RAM (no mlock): a page may still reach swap. What this type guarantees is that
/// the bytes do not outlive their last owner in this process's heap.
public struct SecureBytes: Sendable {
    private var storage: SecureBytesStorage

    /// Copies `bytes`; the caller's array is the caller's to wipe or drop.
    public init(_ bytes: [UInt8]) {
        storage = bytes.withUnsafeBytes { SecureBytesStorage(copying: $0) }
    }

    /// `count` zero bytes. Traps if `count` is negative, like `Array(repeating:count:)`.
    public init(count: Int) {
        storage = SecureBytesStorage(count: count)
    }

    public var count: Int { storage.count }

    /// Where the bytes live and whether MADV_DONTDUMP took effect: tests check the mapping's
    /// flags in `/proc/self/smaps` rather than trusting this.
    var storageAddress: UInt { storage.address }
    var isExcludedFromDumps: Bool { storage.excludedFromDumps }

    /// Read access. Do not let the pointer escape `body`; copying the bytes out makes a copy
    /// this type no longer wipes.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try storage.withUnsafeBytes(body)
    }

    /// Write access to this value's own bytes (copied first if another value shares them).
    public mutating func withUnsafeMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        makeUnique()
        return try storage.withUnsafeMutableBytes(body)
    }

    /// Overwrites this value's bytes with zeros now (explicit_bzero), keeping `count`.
    /// Other copies keep their bytes: shared storage is replaced, not wiped, and is wiped
    /// when its last other owner goes away.
    public mutating func zeroize() {
        if isKnownUniquelyReferenced(&storage) {
            storage.cleanse()
        } else {
            storage = SecureBytesStorage(count: storage.count)
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }
}

extension SecureBytes: Equatable {
    /// Constant-time in the contents (CRYPTO_memcmp); the lengths are not secret. Stops the
    /// process if libcrypto cannot be loaded (see `OpenSSL.essentialLibrary`).
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let ssl = OpenSSL.essentialLibrary
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in ssl.memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SecureBytes(\(count) bytes)" }
    public var debugDescription: String { description }
    /// Only the count, so `dump` and reflection-based printers cannot reach the storage.
    public var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .struct) }
}
