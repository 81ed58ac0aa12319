import CCurl

extension TransportError {
    /// Maps a failed transfer's CURLcode to a code and a user-facing message. Context keeps the
    /// request's method and printable URL, curl's numeric code and sentence, and the error-buffer
    /// text (`detail`: host, port, elapsed time, TLS reason — never headers or bodies).
    ///
    /// `exceededLimit` says the write or header callback refused data for size, which curl reports
    /// as CURLE_WRITE_ERROR.
    static func curl(_ code: CURLcode, detail: String, exceededLimit: Bool, context: [String: String]) -> TransportError {
        var context = context
        context["curlCode"] = "\(code.rawValue)"
        context["curl"] = Curl.text(code)
        if !detail.isEmpty { context["detail"] = String(detail.prefix(Int(CURL_ERROR_SIZE))) }
        let (errorCode, message) = classify(code, exceededLimit: exceededLimit)
        return TransportError(errorCode, message, context: context)
    }

    private static func classify(_ code: CURLcode, exceededLimit: Bool) -> (TransportErrorCode, String) {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            (.invalidURL, "The server address is not a valid https URL.")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            (.couldNotResolve, "The server's name could not be resolved; check the network and DNS.")
        case CURLE_COULDNT_CONNECT:
            (.couldNotConnect, "Could not connect to the server.")
        case CURLE_OPERATION_TIMEDOUT:
            (.timedOut, "The server did not answer in time.")
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            (.pinMismatch, "The server's key does not match the pinned keys; the connection was refused.")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            (.tlsFailure, "The secure connection to the server failed; its certificate could not be verified.")
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            (.connectionDropped, "The connection to the server broke before the answer was complete.")
        case CURLE_FILESIZE_EXCEEDED:
            (.responseTooLarge, "The server's answer is larger than allowed.")
        case CURLE_WRITE_ERROR where exceededLimit:
            (.responseTooLarge, "The server's answer is larger than allowed.")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING,
             CURLE_TOO_MANY_REDIRECTS:
            (.protocolError, "The server's answer was not valid HTTP.")
        default:
            (.internalFailure, "The request failed inside the HTTP library.")
        }
    }
}
