import Glibc

/// Overwrites buffers that held secret bytes (VLT-7). glibc's `explicit_bzero` is used because
/// the compiler may not elide it as a dead store.
enum Zeroize {
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { clear($0) }
    }

    /// For C structures such as TPM2B_SENSITIVE_CREATE that embed the secret inline.
    static func wipe<Value>(_ value: inout Value) {
        withUnsafeMutableBytes(of: &value) { clear($0) }
    }

    /// For memory owned by ESAPI (e.g. the TPM2B_SENSITIVE_DATA from Esys_Unseal) before Esys_Free.
    static func wipe(_ raw: UnsafeMutableRawBufferPointer) {
        clear(raw)
    }

    private static func clear(_ raw: UnsafeMutableRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        explicit_bzero(base, raw.count)
    }
}
