import CLibCrypto
import EdgeCore
import Glibc

/// Keeps secrets out of core dumps (issue #16): Swift's crash handler and the kernel's core
/// dumper write the memory registers point to, which can be a token or a vault key.
///
/// Two layers, because either alone leaves a gap:
/// - `disableForProcess()`: PR_SET_DUMPABLE 0. No core file at all, `/proc/<pid>/mem` and ptrace
///   closed to other processes of the same user. The `edge` commands that hold secrets call it
///   before anything else (EdgeCommand.main).
/// - `excludeFromDumps`: MADV_DONTDUMP on the pages of each `SecureBytes`, so even a process that
///   stays dumpable (a library caller, a debugging build) leaves secret buffers out of its core.
public enum DumpProtection {
    /// PR_SET_DUMPABLE 0 for the whole process (inherited by threads; reset by execve of a
    /// set-user-ID program only, which edge never runs).
    public static func disableForProcess() throws(CryptoError) {
        guard edge_prctl_set_dumpable(0) == 0 else { throw failure(errno, call: "prctl(PR_SET_DUMPABLE)") }
    }

    /// PR_GET_DUMPABLE: false once `disableForProcess()` ran.
    public static func processIsDumpable() throws(CryptoError) -> Bool {
        let value = edge_prctl_get_dumpable()
        guard value >= 0 else { throw failure(errno, call: "prctl(PR_GET_DUMPABLE)") }
        return value != 0
    }

    /// MADV_DONTDUMP on `length` bytes from `base`, which must be page-aligned (an mmap'ed block).
    public static func excludeFromDumps(_ base: UnsafeMutableRawPointer, length: Int) throws(CryptoError) {
        while madvise(base, length, MADV_DONTDUMP) != 0 {
            guard errno == EINTR else { throw failure(errno, call: "madvise(MADV_DONTDUMP)") }
        }
    }

    private static func failure(_ code: Int32, call: String) -> CryptoError {
        CryptoError(.systemFailure, "\(call) failed: \(String(cString: strerror(code)))",
                    context: ["call": call, "errno": "\(code)"])
    }
}
