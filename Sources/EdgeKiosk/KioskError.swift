import EdgeEnrollment
import EdgeReceiving
import FoundationEssentials
import HTTPTypes
import Hummingbird

/// An API refusal (UI-1): `{"error": {"code", "message", "retry_after"?}}` with an HTTP status.
/// `message` is what the screen shows, word for word (the ENR-5 / ENR-7 texts come through here
/// unchanged); it never holds a code, a token or a PIN.
public struct KioskError: Error, Sendable, HTTPResponseError, CustomStringConvertible {
    public enum Code: String, Sendable {
        case csrf
        case crossSite = "cross-site"
        case pinRequired = "pin-required"
        case pinRefused = "pin-refused"
        case badRequest = "bad-request"
        case notFound = "not-found"
        case notThisStation = "not-this-station"
        case unavailable
        case camera
    }

    /// The capability's own code (`invalid-code`, `rate-limited`, `wrong-tenant`, ...) or one of `Code`.
    public let code: String
    public let message: String
    public let status: HTTPResponse.Status
    public let retryAfter: Int?

    public init(_ code: Code, _ message: String, status: HTTPResponse.Status) {
        self.code = code.rawValue
        self.message = message
        self.status = status
        retryAfter = nil
    }

    /// An enrollment refusal: its code and message as they are; 429 for the attempt limit.
    public init(_ error: EnrollmentError) {
        code = error.code.rawValue
        message = error.message
        retryAfter = error.context["retry_after"].flatMap { Int($0) }
        switch error.code {
        case .rateLimited: status = .tooManyRequests
        case .notFound: status = .notFound
        case .invalidTransition, .differentPatient: status = .conflict
        case .noNetwork, .timedOut, .serverError: status = .badGateway
        case .store, .vault, .notConfigured, .camera: status = .serviceUnavailable
        default: status = .unprocessableContent
        }
    }

    public init(_ error: ReceivingError) {
        code = error.code.rawValue
        message = error.message
        retryAfter = nil
        switch error.code {
        case .notFound: status = .notFound
        case .storeFailed, .notConfigured: status = .serviceUnavailable
        case .unauthorized, .invalidAnswer: status = .badGateway
        case .receiptChanged: status = .conflict
        default: status = .unprocessableContent
        }
    }

    public var description: String { message }

    struct Body: Encodable {
        struct Inner: Encodable {
            let code: String
            let message: String
            let retryAfter: Int?
            enum CodingKeys: String, CodingKey {
                case code, message
                case retryAfter = "retry_after"
            }
        }
        let error: Inner
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = KioskResponse.json(Body(error: .init(code: code, message: message, retryAfter: retryAfter)), status: status)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
