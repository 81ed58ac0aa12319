import EdgeContract
import EdgeCore

/// The photos the stand-in received (RCV-2), by hash, with how many uploads stored each (never
/// more than one: a repeated upload is a no-op) and how many were answered as duplicates.
public final class StandinPhotoShelf: Sendable {
    public struct Photo: Sendable, Hashable {
        public var bytes: [UInt8]
        public var receipt: GRNPhotoReceipt
        /// Uploads that stored it: 1.
        public var stored: Int
        /// Uploads answered 200 because it was already here.
        public var duplicates: Int
    }

    private let photos = Locked<[String: Photo]>([:])

    public init() {}

    public func photo(_ sha256: String) -> Photo? { photos.withLock { $0[sha256] } }

    public var all: [String: Photo] { photos.withLock { $0 } }

    /// Stores the bytes under `sha256` unless present; true when this call stored them.
    func put(_ sha256: String, bytes: [UInt8], now: String) -> (Photo, stored: Bool) {
        photos.withLock { shelf in
            if var existing = shelf[sha256] {
                existing.duplicates += 1
                shelf[sha256] = existing
                return (existing, false)
            }
            let photo = Photo(bytes: bytes, receipt: GRNPhotoReceipt(sha256: sha256, bytes: bytes.count, receivedAt: now), stored: 1, duplicates: 0)
            shelf[sha256] = photo
            return (photo, true)
        }
    }
}
