import EdgeContract

/// Everything the stand-in remembers, in memory only: a restart starts clean, which is what tests
/// want (SYN-11 allows in-memory or SQLite).
struct StandinState: Sendable {
    var purchaseOrders: [String: PurchaseOrder] = [:]
    /// By lower-cased vendor UUID.
    var vendors: [String: VendorInfo] = [:]
    var materials: [String: MaterialInfo] = [:]
    var products: [String: ProductInfo] = [:]
    var enrollments: [String: EnrollmentRecord] = [:]
    /// Unformatted linking code -> enrollment id.
    var linkingCodes: [String: String] = [:]
    var tokens: [String: TokenRecord] = [:]
    var devices: [String: DeviceRegistrationResponse] = [:]
    var idempotency: [String: IdempotencyRecord] = [:]
    /// Keys in the order first seen.
    var idempotencyOrder: [String] = []
    var pushes: [SyncPushRequest] = []
    var serverSequence: Int64 = 0
    /// The pull log; a cursor is an offset into it.
    var changes: [SyncChange] = []
    var grns: [String: GRNConfirmRequest] = [:]
    var grnCount = 0
}
