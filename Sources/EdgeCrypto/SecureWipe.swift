import Glibc

/// Overwrites memory that held secret bytes with zeros through glibc's `explicit_bzero`, which
/// the optimiser may not remove as a dead store (a `for i in bytes.indices { bytes[i] = 0 }`
/// loop before the array dies may be). The one primitive for plaintext copies outside
/// `SecureBytes`: stdin buffers, PEM text, the vault's intermediate arrays.
public enum SecureWipe {
    /// Wipes the array's own storage. The caller must hold the only reference: writing through a
    /// shared array copies it first (copy-on-write) and wipes the copy, not the bytes.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { wipe($0) }
    }

    public static func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }
}
