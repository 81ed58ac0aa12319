/// The contract's paths (models/openapi.json), relative to the backend's base URL.
public enum APIPath {
    /// One outbox entry per request, keyed by its Idempotency-Key (SYN-2, SYN-7).
    public static let syncPush = "/api/sync/push"
    /// Delta sync with an opaque cursor (SYN-9).
    public static let syncPull = "/api/sync/pull"
    public static let enrollmentLink = "/api/enrollment/link"
    public static let enrollmentStatus = "/api/enrollment/status"
    public static let enrollmentRefresh = "/api/enrollment/refresh"
    /// PO barcode and material / product lookups (RCV-1, RCV-5, RCV-6).
    public static let scanBarcode = "/api/mobile/scan/barcode"
    /// Vendor QR lookup (RCV-4).
    public static let scanQR = "/api/mobile/scan/qr"
    /// GRN confirmation (RCV-2); 409 when the order was already received (RCV-3).
    public static let grnConfirm = "/api/grn/confirm"
    /// Photo evidence by content hash (RCV-2): `PUT /api/grn/photos/{sha256}`, body the JPEG.
    public static let grnPhotos = "/api/grn/photos"
    public static let deviceRegister = "/api/devices/register"
}
