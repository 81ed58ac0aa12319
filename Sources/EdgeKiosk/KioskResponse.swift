import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore

/// Responses the kiosk sends: JSON with sorted snake_case keys (the CLI's documents), HTML pages
/// and embedded assets. Every one carries the kiosk's security headers (UI-7), added here rather
/// than by a middleware so that error responses Hummingbird builds from a thrown `KioskError` get
/// them too.
enum KioskResponse {
    /// Decision: no inline script or style anywhere, so the policy needs no nonce or hash; images
    /// only from the kiosk itself (photo previews); nothing may frame the kiosk.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func headers(_ contentType: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.xContentTypeOptions] = "nosniff"
        fields[.init("Referrer-Policy")!] = "no-referrer"
        fields[.init("X-Frame-Options")!] = "DENY"
        fields[.init("Cross-Origin-Opener-Policy")!] = "same-origin"
        fields[.init("Cross-Origin-Resource-Policy")!] = "same-origin"
        // Pages hold live state and the CSRF token: never from a cache.
        fields[.cacheControl] = "no-store"
        return fields
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = (try? encoder.encode(value)).map(Array.init) ?? Array(#"{"error":{"code":"encoding","message":"The answer could not be encoded."}}"#.utf8)
        return Response(status: status, headers: headers("application/json"), body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func bytes(_ bytes: [UInt8], contentType: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: headers(contentType), body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        bytes(Array(text.utf8), contentType: "text/html; charset=utf-8", status: status)
    }

    static func redirect(_ location: String) -> Response {
        var fields = headers("text/plain; charset=utf-8")
        fields[.location] = location
        return Response(status: .seeOther, headers: fields)
    }
}
