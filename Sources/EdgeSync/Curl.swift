import CCurl

/// The one seam between Swift and libcurl: every curl call the transport makes goes through
/// here, returns its CURLcode/CURLMcode/CURLUcode and becomes a typed throw on failure, with the
/// option or function named in the error's context. Nothing else in EdgeSync calls `curl_*`
/// setters directly.
enum Curl {
    /// `curl_global_init` exactly once per process, before any other curl call. A `static let`
    /// is initialised once, thread-safely (swift_once), which is what curl_global_init needs.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    static func initializeGlobally() throws(TransportError) {
        let code = globalInit
        guard code == CURLE_OK else {
            throw TransportError(.internalFailure, "The HTTP library could not be initialised.",
                                 context: ["function": "curl_global_init", "curlCode": "\(code.rawValue)", "curl": text(code)])
        }
    }

    // MARK: easy handles

    static func easyInit() throws(TransportError) -> UnsafeMutableRawPointer {
        guard let handle = curl_easy_init() else {
            throw TransportError(.internalFailure, "The HTTP library could not create a request.", context: ["function": "curl_easy_init"])
        }
        return handle
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(edge_curl_easy_setopt_long(easy, option, value), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Bool) throws(TransportError) {
        try check(edge_curl_easy_setopt_long(easy, option, value ? 1 : 0), option)
    }

    /// A string option; curl copies the string (CURLOPTTYPE_STRINGPOINT), so it need not outlive the call.
    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(TransportError) {
        try check(edge_curl_easy_setopt_string(easy, option, value), option)
    }

    /// A pointer option; the caller keeps the pointee alive until the handle is cleaned up.
    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, pointer: UnsafeMutableRawPointer?) throws(TransportError) {
        try check(edge_curl_easy_setopt_pointer(easy, option, pointer), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, offset value: Int64) throws(TransportError) {
        try check(edge_curl_easy_setopt_off_t(easy, option, curl_off_t(value)), option)
    }

    static func setopt(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, callback: curl_write_callback) throws(TransportError) {
        try check(edge_curl_easy_setopt_write_callback(easy, option, callback), option)
    }

    static func getinfo(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int? {
        var value = 0
        guard edge_curl_easy_getinfo_long(easy, info, &value) == CURLE_OK else { return nil }
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
        guard let text = curl_easy_strerror(code) else { return "CURLcode \(code.rawValue)" }
        return String(cString: text)
    }

    // MARK: multi handles

    static func multiInit() throws(TransportError) -> UnsafeMutableRawPointer {
        guard let handle = curl_multi_init() else {
            throw TransportError(.internalFailure, "The HTTP library could not create its connection pool.", context: ["function": "curl_multi_init"])
        }
        return handle
    }

    static func multiSetopt(_ multi: UnsafeMutableRawPointer, _ option: CURLMoption, _ value: Int) throws(TransportError) {
        try check(edge_curl_multi_setopt_long(multi, option, value), "curl_multi_setopt", option: "\(option.rawValue)")
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
        guard let text = curl_multi_strerror(code) else { return "CURLMcode \(code.rawValue)" }
        return String(cString: text)
    }
}
