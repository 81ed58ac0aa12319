import CCurl
import Glibc

/// One request as a configured curl easy handle, plus the response it accumulates.
///
/// Threads: built and configured on the caller's thread, then handed to the loop thread through
/// `CurlMultiLoop`'s lock (which orders the two); from then on only the loop thread touches it —
/// curl calls the write/header callbacks there. Hence `@unchecked Sendable`.
///
/// Lifetime: everything curl was given a pointer to (URL handle, header list, body, error
/// buffer) is owned here and freed in `deinit`, after `curl_easy_cleanup`. The loop removes the
/// handle from the multi handle before it lets go of the transfer.
final class CurlTransfer: @unchecked Sendable {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    private let target: RequestTarget
    private let method: HTTPMethod
    private let maxResponseBytes: Int
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var requestBody: UnsafeMutableRawBufferPointer?

    // The response so far (loop thread only).
    private var responseBody: [UInt8] = []
    private var responseHeaders: [HTTPHeader] = []
    private var headerBytes = 0
    private var exceededLimit = false

    /// Header blocks larger than this fail with `.responseTooLarge`, whatever the body limit.
    static let maxHeaderBytes = 256 * 1024

    /// Header names the transport manages itself; a request that sets one is `.invalidRequest`.
    /// Framing (`Content-Length`, `Transfer-Encoding`) follows the body, and `Expect` is always
    /// suppressed (no 100-continue round trip: sync bodies are small and the server answers anyway).
    static let reservedHeaders: Set<String> = ["content-length", "transfer-encoding", "expect", "host", "connection"]

    private init(id: UInt64, easy: UnsafeMutableRawPointer, target: RequestTarget, method: HTTPMethod, maxResponseBytes: Int) {
        self.id = id
        self.easy = easy
        self.target = target
        self.method = method
        self.maxResponseBytes = maxResponseBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        Curl.easyCleanup(easy)
        // The Authorization value and the body are secrets: zero curl's copies we own before freeing.
        var node = headerList
        while let current = node {
            if let data = current.pointee.data { memset(data, 0, strlen(data)) }
            node = current.pointee.next
        }
        Curl.slistFreeAll(headerList)
        if let requestBody {
            if let base = requestBody.baseAddress { memset(base, 0, requestBody.count) }
            requestBody.deallocate()
        }
        errorBuffer.deallocate()
    }

    /// Validates `request` and builds its easy handle. Throws before any network traffic.
    static func make(id: UInt64, request: HTTPRequest, options: TransportOptions, pins: String?) throws(TransportError) -> CurlTransfer {
        let target = try RequestTarget(request.url)
        try validate(request.headers, target: target, method: request.method)
        let transfer = CurlTransfer(id: id, easy: try Curl.easyInit(), target: target, method: request.method,
                                    maxResponseBytes: options.maxResponseBytes)
        try transfer.configure(request, options: options, pins: pins)
        return transfer
    }

    private static func validate(_ headers: [HTTPHeader], target: RequestTarget, method: HTTPMethod) throws(TransportError) {
        for header in headers {
            let context = ["url": target.printable, "method": method.rawValue, "header": String(header.name.prefix(64))]
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(isTokenByte) else {
                throw TransportError(.invalidRequest, "A request header has an invalid name.", context: context)
            }
            guard !header.value.utf8.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D }) else {
                throw TransportError(.invalidRequest, "A request header value contains a line break or NUL.", context: context)
            }
            guard !reservedHeaders.contains(ASCIILowercase.string(header.name)) else {
                throw TransportError(.invalidRequest, "A request sets a header the transport manages itself.", context: context)
            }
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private func configure(_ request: HTTPRequest, options: TransportOptions, pins: String?) throws(TransportError) {
        let opaqueSelf = Unmanaged.passUnretained(self).toOpaque()
        try Curl.setopt(easy, CURLOPT_CURLU, pointer: UnsafeMutableRawPointer(target.handle))
        try Curl.setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        // No redirects: a sync client must not be sent elsewhere silently; a 3xx is an answer.
        try Curl.setopt(easy, CURLOPT_FOLLOWLOCATION, false)
        try Curl.setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https")
        // Proxy variables in the environment are ignored; a station's proxy would be explicit configuration.
        try Curl.setopt(easy, CURLOPT_PROXY, "")
        try Curl.setopt(easy, CURLOPT_NOSIGNAL, true)
        try Curl.setopt(easy, CURLOPT_PRIVATE, pointer: opaqueSelf)
        try Curl.setopt(easy, CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))

        // TLS: always verified (see TransportOptions); HTTP/2 over TLS when the server offers it.
        try Curl.setopt(easy, CURLOPT_SSL_VERIFYPEER, 1)
        try Curl.setopt(easy, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = options.caFile { try Curl.setopt(easy, CURLOPT_CAINFO, caFile) }
        if let pins { try Curl.setopt(easy, CURLOPT_PINNEDPUBLICKEY, pins) }
        // Decision: no h2c. Debian 12's libcurl 7.88 fails requests that reuse a prior-knowledge
        // h2c connection (curl issue 10634), so plain http (loopback only) stays HTTP/1.1.
        try Curl.setopt(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Wait for an HTTP/2 connection being set up rather than opening a second one.
        try Curl.setopt(easy, CURLOPT_PIPEWAIT, true)

        try Curl.setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout))
        try Curl.setopt(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(options.totalTimeout))
        try Curl.setopt(easy, CURLOPT_USERAGENT, options.userAgent)
        // Refuses early when Content-Length announces too much; the write callback catches the rest.
        try Curl.setopt(easy, CURLOPT_MAXFILESIZE_LARGE, offset: Int64(options.maxResponseBytes))

        try Curl.setopt(easy, CURLOPT_WRITEFUNCTION, callback: curlWriteCallback)
        try Curl.setopt(easy, CURLOPT_WRITEDATA, pointer: opaqueSelf)
        try Curl.setopt(easy, CURLOPT_HEADERFUNCTION, callback: curlHeaderCallback)
        try Curl.setopt(easy, CURLOPT_HEADERDATA, pointer: opaqueSelf)

        try configureMethodAndBody(request)
        try configureHeaders(request.headers)
    }

    private func configureMethodAndBody(_ request: HTTPRequest) throws(TransportError) {
        let sendsBody = !request.body.isEmpty || request.method == .post || request.method == .put
        guard sendsBody else {
            if request.method == .get {
                try Curl.setopt(easy, CURLOPT_HTTPGET, true)
            } else {
                try Curl.setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
            return
        }
        // Our own copy (zeroed in deinit), so curl never reads Swift array storage.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(request.body.count, 1), alignment: 1)
        requestBody = buffer
        buffer.copyBytes(from: request.body)
        try Curl.setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
        try Curl.setopt(easy, CURLOPT_POSTFIELDS, pointer: buffer.baseAddress)
        if request.method != .post {
            try Curl.setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
    }

    private func configureHeaders(_ headers: [HTTPHeader]) throws(TransportError) {
        // "Name;" is curl's syntax for a header with an empty value ("Name:" would remove it).
        var lines = headers.map { $0.value.isEmpty ? "\($0.name);" : "\($0.name): \($0.value)" }
        lines.append("Expect:")
        for line in lines {
            guard let appended = Curl.slistAppend(headerList, line) else {
                throw TransportError(.internalFailure, "The HTTP library could not store a request header.",
                                     context: ["function": "curl_slist_append"])
            }
            headerList = appended
        }
        try Curl.setopt(easy, CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headerList))
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        Int((seconds * 1000).rounded(.up))
    }

    // MARK: callbacks (loop thread)

    /// Appends body bytes; returning a short count makes curl abort with CURLE_WRITE_ERROR.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count <= maxResponseBytes - responseBody.count else {
            exceededLimit = true
            return 0
        }
        responseBody.append(contentsOf: bytes)
        return bytes.count
    }

    /// One header line (status line, field, or the blank line ending a block). A status line
    /// starts a new block, so 1xx blocks (100 Continue, 103 Early Hints) are discarded and only
    /// the final response's fields remain.
    func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else {
            exceededLimit = true
            return 0
        }
        var line = bytes[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
        if line.starts(with: "HTTP/".utf8) {
            responseHeaders.removeAll()
        } else if let first = line.first, first == 0x20 || first == 0x09 {
            // Obsolete line folding: continues the previous field's value.
            if let previous = responseHeaders.popLast() {
                responseHeaders.append(HTTPHeader(previous.name, previous.value + " " + Self.trimmed(line)))
            }
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = ASCIILowercase.string(String(decoding: line[..<colon], as: UTF8.self))
            responseHeaders.append(HTTPHeader(name, Self.trimmed(line[line.index(after: colon)...])))
        }
        return bytes.count
    }

    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        var value = bytes
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        return String(decoding: value, as: UTF8.self)
    }

    // MARK: completion (loop thread)

    /// The response, or the error curl's result code stands for.
    func outcome(_ code: CURLcode) -> Result<HTTPResponse, TransportError> {
        guard code == CURLE_OK else {
            return .failure(TransportError.curl(code, detail: errorText, exceededLimit: exceededLimit, context: context))
        }
        guard let status = Curl.getinfo(easy, CURLINFO_RESPONSE_CODE), status >= 100 else {
            return .failure(TransportError(.protocolError, "The server's reply had no HTTP status.", context: context))
        }
        let version: HTTPVersion = switch Curl.getinfo(easy, CURLINFO_HTTP_VERSION) {
        case Int(CURL_HTTP_VERSION_1_0): .http1_0
        case Int(CURL_HTTP_VERSION_2_0): .http2
        default: .http1_1
        }
        return .success(HTTPResponse(status: status, headers: responseHeaders, body: responseBody, version: version))
    }

    /// Method and printable URL, the context of every error about this request.
    var context: [String: String] {
        ["method": method.rawValue, "url": target.printable]
    }

    private var errorText: String {
        String(cString: errorBuffer)
    }
}

/// CURLOPT_WRITEFUNCTION: `userdata` is the unretained `CurlTransfer` (kept alive by the loop).
private func curlWriteCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

/// CURLOPT_HEADERFUNCTION: one complete header line per call.
private func curlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userdata: UnsafeMutableRawPointer?) -> Int {
    guard let userdata else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
}
