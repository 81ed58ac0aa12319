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
        fields[KioskHeader.referrerPolicy] = "no-referrer"
        fields[KioskHeader.frameOptions] = "DENY"
        fields[KioskHeader.openerPolicy] = "same-origin"
        fields[KioskHeader.resourcePolicy] = "same-origin"
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

/// Header names the kiosk uses that HTTPTypes has no constant for.
enum KioskHeader {
    static let csrfToken = name("X-CSRF-Token")
    static let fetchSite = name("Sec-Fetch-Site")
    static let lastEventID = name("Last-Event-ID")
    static let accelBuffering = name("X-Accel-Buffering")
    static let referrerPolicy = name("Referrer-Policy")
    static let frameOptions = name("X-Frame-Options")
    static let openerPolicy = name("Cross-Origin-Opener-Policy")
    static let resourcePolicy = name("Cross-Origin-Resource-Policy")

    /// The literals above are valid field names, so the failable initialiser always succeeds;
    /// the fallback only spares a force unwrap (the tests check every name arrives as written).
    private static func name(_ text: String) -> HTTPField.Name { HTTPField.Name(text) ?? .via }
}
