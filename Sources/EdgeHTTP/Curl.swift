import CCurl

/// The one seam between Swift and libcurl: every curl call the transport makes goes through
/// here, returns its CURLcode/CURLMcode/CURLUcode and becomes a typed throw on failure, with the
/// option or function named in the error's context. Elsewhere in EdgeHTTP only the frees
/// (`curl_easy_cleanup`, `curl_multi_cleanup`, `curl_url_cleanup`, the header slist) are called
/// directly, by the object that owns the handle.
enum Curl {
    /// `curl_global_init` exactly once per process, before any other curl call. A `static let`
    /// is initialised once, thread-safely (swift_once), which is what curl_global_init needs.
    private static let globalInit: Result<CURLcode, TransportError> = CurlLibrary.shared.map { $0.globalInit(Int(CURL_GLOBAL_DEFAULT)) }

    /// The loaded library. Only reached after `initializeGlobally` succeeded (every handle is
    /// made after it), so the failure branch is a programming error reported as one.
    static var lib: CurlLibrary {
        get throws(TransportError) { try CurlLibrary.shared.get() }
    }

    /// For frees in deinit, which cannot throw: the library is loaded if the handle exists.
    static var loaded: CurlLibrary? { try? CurlLibrary.shared.get() }

    static func initializeGlobally() throws(TransportError) {
        let code = try globalInit.get()
        guard code == CURLE_OK else {
            throw TransportError(.internalFailure, "The HTTP library could not be initialised.",
                                 context: ["function": "curl_global_init", "curlCode": "\(code.rawValue)", "curl": text(code)])
        }
    }

    // MARK: easy handles

    static func easyInit() throws(TransportError) -> UnsafeMutableRawPointer {
        guard let handle = try lib.easyInit() else {
            throw TransportError(.internalFailure, "The HTTP library could not create a request.", context: ["function": "curl_easy_init"])
        }
        return handle
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(edge_curl_easy_setopt_long(try lib.easySetopt, easy, option, value), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Bool) throws(TransportError) {
        try check(edge_curl_easy_setopt_long(try lib.easySetopt, easy, option, value ? 1 : 0), option)
    }

    /// A string option; curl copies the string (CURLOPTTYPE_STRINGPOINT), so it need not outlive the call.
    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(TransportError) {
        try check(edge_curl_easy_setopt_string(try lib.easySetopt, easy, option, value), option)
    }

    /// A pointer option; the caller keeps the pointee alive until the handle is cleaned up.
    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(TransportError) {
        try check(edge_curl_easy_setopt_pointer(try lib.easySetopt, easy, option, pointer), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, offset value: Int64) throws(TransportError) {
        try check(edge_curl_easy_setopt_off_t(try lib.easySetopt, easy, option, curl_off_t(value)), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, callback: curl_write_callback) throws(TransportError) {
        try check(edge_curl_easy_setopt_write_callback(try lib.easySetopt, easy, option, callback), option)
    }

    static func getinfo(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int? {
        var value = 0
        guard let lib = loaded, edge_curl_easy_getinfo_long(lib.easyGetinfo, easy, info, &value) == CURLE_OK else { return nil }
        return value
    }

    private static func check(_ code: CURLcode, _ option: CURLoption) throws(TransportError) {
        guard code == CURLE_OK else {
            throw TransportError(.internalFailure, "The HTTP library rejected a request setting.",
                                 context: ["function": "curl_easy_setopt", "option": "\(option.rawValue)",
                                           "curlCode": "\(code.rawValue)", "curl": text(code)])
        }
    }

    /// curl_easy_strerror: a fixed English sentence per code.
    static func text(_ code: CURLcode) -> String {
        guard let text = loaded?.easyStrerror(code) else { return "CURLcode \(code.rawValue)" }
        return String(cString: text)
    }

    // MARK: multi handles

    static func multiInit() throws(TransportError) -> UnsafeMutableRawPointer {
        guard let handle = try lib.multiInit() else {
            throw TransportError(.internalFailure, "The HTTP library could not create its connection pool.", context: ["function": "curl_multi_init"])
        }
        return handle
    }

    static func multiSetopt(_ multi: UnsafeMutableRawPointer, _ option: CURLMoption, _ value: Int) throws(TransportError) {
        try check(edge_curl_multi_setopt_long(try lib.multiSetopt, multi, option, value), "curl_multi_setopt", option: "\(option.rawValue)")
    }

    static func multiAdd(_ multi: UnsafeMutableRawPointer, _ easy: UnsafeMutableRawPointer) throws(TransportError) {
        try check(try lib.multiAddHandle(multi, easy), "curl_multi_add_handle")
    }

    /// Failure is ignored: the only documented ones are a bad handle or a call from a callback,
    /// which this code never makes; the transfer is released right after either way.
    static func multiRemove(_ multi: UnsafeMutableRawPointer, _ easy: UnsafeMutableRawPointer) {
        _ = loaded?.multiRemoveHandle(multi, easy)
    }

    static func multiPerform(_ multi: UnsafeMutableRawPointer) throws(TransportError) {
        var running: Int32 = 0
        try check(try lib.multiPerform(multi, &running), "curl_multi_perform")
    }

    /// Sleeps until a socket is ready, curl's next timer is due, `milliseconds` pass or another
    /// thread calls `multiWakeup`.
    static func multiPoll(_ multi: UnsafeMutableRawPointer, milliseconds: Int32) throws(TransportError) {
        try check(try lib.multiPoll(multi, nil, 0, milliseconds, nil), "curl_multi_poll")
    }

    /// The one multi call curl allows from any thread. Its failure (the wakeup pipe is full) means
    /// a wakeup is already pending, which is all the caller wants.
    static func multiWakeup(_ multi: UnsafeMutableRawPointer) {
        _ = loaded?.multiWakeup(multi)
    }

    /// The next finished transfer (CURLMSG_DONE), with its result; nil when none is left.
    static func multiNextDone(_ multi: UnsafeMutableRawPointer) -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var queued: Int32 = 0
        guard let lib = loaded else { return nil }
        while let message = lib.multiInfoRead(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            return (easy, message.pointee.data.result)
        }
        return nil
    }

    static func check(_ code: CURLMcode, _ function: StaticString, option: String? = nil) throws(TransportError) {
        guard code == CURLM_OK else { throw failure(code, function, option: option) }
    }

    static func failure(_ code: CURLMcode, _ function: StaticString, option: String? = nil) -> TransportError {
        var context = ["function": "\(function)", "curlMultiCode": "\(code.rawValue)", "curl": text(code)]
        if let option { context["option"] = option }
        return TransportError(.internalFailure, "The HTTP library's connection pool failed.", context: context)
    }

    static func text(_ code: CURLMcode) -> String {
        guard let text = loaded?.multiStrerror(code) else { return "CURLMcode \(code.rawValue)" }
        return String(cString: text)
    }

    /// curl_easy_cleanup.
    static func easyCleanup(_ easy: UnsafeMutableRawPointer) { loaded?.easyCleanup(easy) }

    /// curl_multi_cleanup.
    static func multiCleanup(_ multi: UnsafeMutableRawPointer) { _ = loaded?.multiCleanup(multi) }

    /// curl_url_cleanup.
    static func urlCleanup(_ handle: OpaquePointer) { loaded?.urlCleanup(handle) }

    /// curl_slist_append: nil when curl could not allocate.
    static func slistAppend(_ list: UnsafeMutablePointer<curl_slist>?, _ line: String) -> UnsafeMutablePointer<curl_slist>? {
        loaded?.slistAppend(list, line)
    }

    /// curl_slist_free_all.
    static func slistFreeAll(_ list: UnsafeMutablePointer<curl_slist>?) { loaded?.slistFreeAll(list) }

    // MARK: URL handles

    static func urlInit() throws(TransportError) -> OpaquePointer {
        guard let handle = try lib.url() else {
            throw TransportError(.internalFailure, "The HTTP library could not parse a URL.", context: ["function": "curl_url"])
        }
        return handle
    }

    /// Parses `url` into `handle`; `.invalidURL` with curl's reason (and `printable`) on failure.
    static func urlSet(_ handle: OpaquePointer, _ url: String, printable: String) throws(TransportError) {
        let code = try lib.urlSet(handle, CURLUPART_URL, url, 0)
        guard code == CURLUE_OK else {
            throw TransportError(.invalidURL, "The server address is not a valid URL.", context: ["url": printable, "curl": text(code)])
        }
    }

    /// One part of a parsed URL (curl allocates it; freed here), or nil if the part is absent.
    static func urlPart(_ handle: OpaquePointer, _ what: CURLUPart) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard let lib = loaded, lib.urlGet(handle, what, &value, 0) == CURLUE_OK, let value else { return nil }
        defer { lib.free(value) }
        return String(cString: value)
    }

    static func text(_ code: CURLUcode) -> String {
        guard let text = loaded?.urlStrerror(code) else { return "CURLUcode \(code.rawValue)" }
        return String(cString: text)
    }
}
