import EdgeContract
import EdgeCrypto

extension StandinBackend {
    /// `PUT /api/grn/photos/{sha256}` (RCV-2): the JPEG stored once by its hash. 201 the first
    /// time, 200 with the same receipt after (idempotent by hash); 400 when the body's hash is not
    /// the path's or the body is not a JPEG; 413 above the contract's 4 MiB.
    func photoRoute(_ request: StandinRequest) throws -> StandinReply? {
        let prefix = APIPath.grnPhotos + "/"
        guard request.path.hasPrefix(prefix) else { return nil }
        guard request.method == "PUT" else {
            var reply = StandinReply.error(405, .invalidRequest, "\(request.path) takes PUT, not \(request.method)")
            reply.headers.append(("Allow", "PUT"))
            return reply
        }
        _ = try authenticated(request)
        let sha = String(request.path.dropFirst(prefix.count))
        guard sha.utf8.count == 64, sha.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return .error(400, .invalidRequest, "The path must end in the photo's lower-case hex SHA-256")
        }
        guard request.header(SyncHeaderName.contentType)?.lowercased().hasPrefix(GRNPhotoReceipt.contentType) == true else {
            return .error(415, .invalidRequest, "Photos are \(GRNPhotoReceipt.contentType)")
        }
        guard request.body.count <= GRNPhotoReceipt.maxBytes else {
            return .error(413, .invalidRequest, "A photo is at most \(GRNPhotoReceipt.maxBytes) bytes")
        }
        guard request.body.count > 3, request.body[0] == 0xFF, request.body[1] == 0xD8, request.body[2] == 0xFF else {
            return .error(400, .invalidRequest, "The body is not a JPEG")
        }
        let actual = SHA256.hash(request.body).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        guard actual == sha else {
            return .error(400, .invalidRequest, "The body's SHA-256 is \(actual), not the path's")
        }
        let (photo, stored) = photoShelf.put(sha, bytes: request.body, now: ServerClock.now())
        return .json(stored ? 201 : 200, photo.receipt)
    }
}
