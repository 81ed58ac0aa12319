import Glibc

/// A C library loaded with `dlopen` on first use instead of linked, and its functions resolved
/// with `dlsym`: the one seam over `dlopen`/`dlerror`/`dlsym` for libcurl, libcrypto and the
/// tpm2-tss libraries, which would otherwise cost every `edge` start their loading and, as
/// Debian builds them BIND_NOW, their symbol binding. Failures become the caller's coded error.
///
/// RTLD_NOW: a missing symbol fails here, once, not in the middle of a request or a seal.
/// RTLD_LOCAL: the library's symbols stay out of the global namespace. Never unloaded, so the
/// function pointers stay valid for the life of the process.
public struct SharedLibrary<Code: RawRepresentable & Sendable & Hashable>: @unchecked Sendable where Code.RawValue == String {
    // @unchecked: a handle to a library that is never unloaded.
    public let soname: String
    private let handle: UnsafeMutableRawPointer
    /// What the library is, for messages ("crypto library").
    private let role: String
    private let code: Code

    /// `dlopen(soname)`; when it fails, `code` with a message naming the Debian `package` to install.
    public init(_ soname: String, role: String, package: String, code: Code) throws(CodedError<Code>) {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown"
            throw CodedError(code, "The \(role) \(soname) could not be loaded; install Debian's \(package).",
                             context: ["function": "dlopen", "library": soname, "dlerror": reason])
        }
        self.soname = soname
        self.handle = handle
        self.role = role
        self.code = code
    }

    /// `dlsym(name)` as the C function type `F`; a missing symbol is `code`, with `why` (e.g.
    /// "it is too old") after the name.
    public func function<F>(_ name: String, why: String = "it is too old") throws(CodedError<Code>) -> F {
        guard let pointer = dlsym(handle, name) else {
            throw CodedError(code, "The \(role) \(soname) lacks \(name); \(why).",
                             context: ["function": "dlsym", "library": soname, "symbol": name])
        }
        return unsafeBitCast(pointer, to: F.self)
    }
}
