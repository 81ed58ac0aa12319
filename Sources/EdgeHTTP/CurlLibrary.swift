import CCurl
import EdgeCore
import Glibc

/// libcurl, loaded with `dlopen` the first time the transport is created, and the functions
/// edge calls, resolved with `dlsym`.
///
/// Decision: not linked. Linking libcurl makes the dynamic loader map and initialise it and its
/// dependencies (GnuTLS with p11-kit's modules, Kerberos, LDAP, ...) at every start of `edge`,
/// which measured ~6 ms: more than half of `edge scan --image`'s whole run (SCN-12). A station
/// that never syncs never loads it. The soname is Debian's libcurl4-openssl (SYN-5: the
/// OpenSSL build, one crypto stack with the vault).
struct CurlLibrary: @unchecked Sendable {
    // @unchecked: function pointers into a library that is never unloaded.
    typealias EasyHandle = UnsafeMutableRawPointer
    typealias MultiHandle = UnsafeMutableRawPointer

    static let soname = "libcurl.so.4"

    let globalInit: @convention(c) (Int) -> CURLcode
    let easyInit: @convention(c) () -> EasyHandle?
    let easyCleanup: @convention(c) (EasyHandle?) -> Void
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    /// Variadic: called through the shim's typed wrappers.
    let easySetopt: UnsafeMutableRawPointer
    let easyGetinfo: UnsafeMutableRawPointer
    let multiInit: @convention(c) () -> MultiHandle?
    let multiCleanup: @convention(c) (MultiHandle?) -> CURLMcode
    let multiSetopt: UnsafeMutableRawPointer
    let multiAddHandle: @convention(c) (MultiHandle?, EasyHandle?) -> CURLMcode
    let multiRemoveHandle: @convention(c) (MultiHandle?, EasyHandle?) -> CURLMcode
    let multiPerform: @convention(c) (MultiHandle?, UnsafeMutablePointer<Int32>?) -> CURLMcode
    let multiPoll: @convention(c) (MultiHandle?, UnsafeMutablePointer<curl_waitfd>?, UInt32, Int32, UnsafeMutablePointer<Int32>?) -> CURLMcode
    let multiWakeup: @convention(c) (MultiHandle?) -> CURLMcode
    let multiInfoRead: @convention(c) (MultiHandle?, UnsafeMutablePointer<Int32>?) -> UnsafeMutablePointer<CURLMsg>?
    let multiStrerror: @convention(c) (CURLMcode) -> UnsafePointer<CChar>?
    let url: @convention(c) () -> OpaquePointer?
    let urlSet: @convention(c) (OpaquePointer?, CURLUPart, UnsafePointer<CChar>?, UInt32) -> CURLUcode
    let urlGet: @convention(c) (OpaquePointer?, CURLUPart, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, UInt32) -> CURLUcode
    let urlCleanup: @convention(c) (OpaquePointer?) -> Void
    let urlStrerror: @convention(c) (CURLUcode) -> UnsafePointer<CChar>?
    let free: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let slistAppend: @convention(c) (UnsafeMutablePointer<curl_slist>?, UnsafePointer<CChar>?) -> UnsafeMutablePointer<curl_slist>?
    let slistFreeAll: @convention(c) (UnsafeMutablePointer<curl_slist>?) -> Void

    /// The process's one copy, or why it could not be loaded.
    static let shared: Result<CurlLibrary, TransportError> = load()

    static func load() -> Result<CurlLibrary, TransportError> {
        do {
            return .success(try CurlLibrary(try SharedLibrary(soname, role: "HTTP library", package: "libcurl4", code: .internalFailure)))
        } catch {
            return .failure(error)
        }
    }

    private init(_ library: SharedLibrary<TransportErrorCode>) throws(TransportError) {
        func resolve<F>(_ name: String) throws(TransportError) -> F { try library.function(name) }
        globalInit = try resolve("curl_global_init")
        easyInit = try resolve("curl_easy_init")
        easyCleanup = try resolve("curl_easy_cleanup")
        easyStrerror = try resolve("curl_easy_strerror")
        easySetopt = try resolve("curl_easy_setopt")
        easyGetinfo = try resolve("curl_easy_getinfo")
        multiInit = try resolve("curl_multi_init")
        multiCleanup = try resolve("curl_multi_cleanup")
        multiSetopt = try resolve("curl_multi_setopt")
        multiAddHandle = try resolve("curl_multi_add_handle")
        multiRemoveHandle = try resolve("curl_multi_remove_handle")
        multiPerform = try resolve("curl_multi_perform")
        multiPoll = try resolve("curl_multi_poll")
        multiWakeup = try resolve("curl_multi_wakeup")
        multiInfoRead = try resolve("curl_multi_info_read")
        multiStrerror = try resolve("curl_multi_strerror")
        url = try resolve("curl_url")
        urlSet = try resolve("curl_url_set")
        urlGet = try resolve("curl_url_get")
        urlCleanup = try resolve("curl_url_cleanup")
        urlStrerror = try resolve("curl_url_strerror")
        free = try resolve("curl_free")
        slistAppend = try resolve("curl_slist_append")
        slistFreeAll = try resolve("curl_slist_free_all")
    }
}
