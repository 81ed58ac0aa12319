import EdgeCore
import EdgeContract
import EdgeHTTP
import EdgeSync
import FoundationEssentials

/// The receiving endpoints over the project's HTTP transport (RCV-1, RCV-4..6, the photo upload
/// of RCV-2), with the SYN-6 headers. Lookups change nothing on the server, so they are sent
/// directly rather than through the outbox; the GRN itself always goes through the outbox.
public struct ReceivingClient: Sendable {
    /// Lookup answers are small; a larger one is refused before it is decoded.
    public static let maxAnswerBytes = 1 << 20

    public let baseURL: String
    public let identity: SyncIdentity
    private let transport: any HTTPTransport
    private let tokens: any TokenProvider

    public init(baseURL: String, identity: SyncIdentity, transport: any HTTPTransport, tokens: any TokenProvider) {
        var trimmed = baseURL
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.baseURL = trimmed
        self.identity = identity
        self.transport = transport
        self.tokens = tokens
    }

    /// `POST /api/mobile/scan/barcode`: a PO, material or product (RCV-1, RCV-5, RCV-6).
    public func barcode(_ value: String) async throws(ReceivingError) -> ScanBarcodeResponse {
        let body = try await post(APIPath.scanBarcode, ScanLookupRequest(value: value), subject: value)
        return try decode(ScanBarcodeResponse.self, body, what: "barcode lookup answer")
    }

    /// `POST /api/mobile/scan/qr` with the vendor card's whole text (RCV-4).
    public func vendor(cardText: String, vendorID: String) async throws(ReceivingError) -> VendorInfo {
        let body = try await post(APIPath.scanQR, ScanLookupRequest(value: cardText), subject: "vendor \(vendorID)")
        return try decode(VendorInfo.self, body, what: "vendor card answer")
    }

    /// `PUT /api/grn/photos/{sha256}`; the hash is also the Idempotency-Key. Returns whether the
    /// server already had the photo.
    public func uploadPhoto(sha256: String, jpeg: [UInt8]) async throws(ReceivingError) -> (receipt: GRNPhotoReceipt, duplicate: Bool) {
        var headers = try await headers(contentType: GRNPhotoReceipt.contentType)
        headers.append(HTTPHeader(SyncHeaderName.idempotencyKey, sha256))
        let request = HTTPRequest(method: .put, url: baseURL + APIPath.grnPhotos + "/" + sha256, headers: headers, body: jpeg)
        let response = try await send(request, subject: "photo \(sha256.prefix(12))")
        let receipt = try decode(GRNPhotoReceipt.self, response.body, what: "photo receipt")
        guard receipt.sha256 == sha256 else {
            throw ReceivingError(.invalidAnswer, "The backend acknowledged photo \(receipt.sha256.prefix(12)) for an upload of \(sha256.prefix(12)).",
                                 context: ["sha256": sha256])
        }
        return (receipt, response.status == 200)
    }

    // MARK: Requests

    private func post<Body: Encodable>(_ path: String, _ value: Body, subject: String) async throws(ReceivingError) -> [UInt8] {
        let body: [UInt8]
        do {
            body = try ContractCoding.encode(value)
        } catch {
            throw ReceivingError(.invalidInput, "The request for \(subject) could not be encoded.", context: ["path": path])
        }
        let request = HTTPRequest(method: .post, url: baseURL + path, headers: try await headers(contentType: SyncHeaderName.jsonContentType), body: body)
        return try await send(request, subject: subject).body
    }

    private func headers(contentType: String) async throws(ReceivingError) -> [HTTPHeader] {
        let token: BearerToken?
        do {
            token = try await tokens.token(for: nil)
        } catch {
            throw ReceivingError(.unauthorized, "The station's token could not be read from the vault.", context: [:])
        }
        guard let token else {
            throw ReceivingError(.unauthorized, "There is no station token in the vault; put one with `edge vault put sync.token`.")
        }
        return [HTTPHeader(SyncHeaderName.deviceID, identity.deviceID),
                HTTPHeader(SyncHeaderName.appVersion, identity.appVersion),
                HTTPHeader(SyncHeaderName.platform, SyncHeaderName.platformValue),
                HTTPHeader(SyncHeaderName.osVersion, identity.osVersion),
                HTTPHeader(SyncHeaderName.timezone, identity.timezone),
                HTTPHeader(SyncHeaderName.contentType, contentType),
                HTTPHeader(SyncHeaderName.authorization, token.authorizationValue)]
    }

    /// Sends and sorts the answer: 2xx passes; a transport failure, 408, 429 or 5xx means the
    /// backend is not available now (the caller may answer from its cache); anything else is
    /// the backend's verdict on this request.
    private func send(_ request: HTTPRequest, subject: String) async throws(ReceivingError) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw ReceivingError(.notAvailableOffline, "The backend could not be reached (\(error.message)).",
                                 context: ["subject": subject, "transport": error.code.rawValue])
        }
        guard response.body.count <= Self.maxAnswerBytes else {
            throw ReceivingError(.invalidAnswer, "The backend's answer for \(subject) is \(response.body.count) bytes; at most \(Self.maxAnswerBytes) are read.",
                                 context: ["subject": subject, "status": String(response.status)])
        }
        let error = try? ContractCoding.decode(APIErrorEnvelope.self, from: response.body).error
        let message = error.map { Self.printable($0.message) } ?? "HTTP \(response.status)"
        let context = ["subject": subject, "status": String(response.status), "code": error?.code ?? ""]
        switch response.status {
        case 200..<300:
            return response
        case 408, 429, 500..<600:
            throw ReceivingError(.notAvailableOffline, "The backend is not available (\(message)).", context: context)
        case 401:
            throw ReceivingError(.unauthorized, "The backend refused the station's token (\(message)).", context: context)
        case 403 where error?.knownCode == .wrongTenant:
            throw ReceivingError(.wrongTenant, "The backend refused \(subject): \(message).", context: context)
        case 403:
            throw ReceivingError(.unauthorized, "The backend refused the station (\(message)).", context: context)
        case 404:
            throw ReceivingError(.notFound, message, context: context)
        case 400..<500:
            throw ReceivingError(.invalidInput, "The backend refused \(subject): \(message).", context: context)
        default:
            throw ReceivingError(.invalidAnswer, "The backend answered HTTP \(response.status) for \(subject).", context: context)
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8], what: String) throws(ReceivingError) -> T {
        do {
            return try ContractCoding.decode(T.self, from: body)
        } catch {
            throw ReceivingError(.invalidAnswer, "The backend's \(what) does not follow the contract.", context: ["bytes": String(body.count)])
        }
    }

    /// Server text goes to the operator's screen: one line, printable, bounded.
    static func printable(_ text: String) -> String { DisplayText.oneLine(text, limit: 300) }
}
