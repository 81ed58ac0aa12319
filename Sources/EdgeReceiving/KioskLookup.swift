import EdgeAgent
import EdgeContract
import EdgePayloads

/// What the kiosk shows next after the dock read a label (UI-2): from a camera, or typed by a
/// keyboard-wedge scanner or the operator. The order (fresh, cached or not available offline),
/// a vendor, material or product card, or why it could not be shown. A fact on the station's
/// stream once made.
public struct KioskLookup: StationFact, Hashable {
    public enum Content: Sendable, Hashable {
        case order(OrderLookup)
        case vendor(VendorInfo)
        case material(MaterialInfo)
        case product(ProductLookup)
        /// The read could not be looked up (another tenant's card, the backend refused, ...).
        case refused(code: ReceivingErrorCode, message: String)

        /// "order", "vendor", "material", "product" or "refused".
        public var kind: String {
            switch self {
            case .order: "order"
            case .vendor: "vendor"
            case .material: "material"
            case .product: "product"
            case .refused: "refused"
            }
        }
    }

    /// The camera's configured name, or `keyboard` for typed and wedge input.
    public var camera: String
    /// Unix seconds the scan was captured.
    public var seenAt: Double
    public var content: Content

    public init(camera: String, seenAt: Double, content: Content) {
        self.camera = camera
        self.seenAt = seenAt
        self.content = content
    }

    /// The source name of typed and keyboard-wedge input.
    public static let keyboard = "keyboard"

    /// Looks up a label the dock read, by its payload class (the camera's classification, or the
    /// classifier's for typed text). Never throws: a refusal is what the screen shows.
    public static func lookUp(_ text: String, className: String, camera: String, seenAt: Double, dock: ReceivingDock) async -> KioskLookup {
        let content: Content
        do throws(ReceivingError) {
            switch className {
            case BuiltInPayloadClass.vendor.rawValue: content = .vendor(try await dock.vendor(cardText: text))
            case BuiltInPayloadClass.material.rawValue: content = .material(try await dock.material(text))
            case BuiltInPayloadClass.product.rawValue: content = .product(try await dock.product(text))
            case BuiltInPayloadClass.purchaseOrder.rawValue:
                let order = try await dock.lookupOrder(text)
                // The screen names the vendor: learned now if this station never saw it.
                if let vendorID = order.order?.vendorID { _ = await dock.vendorName(vendorID) }
                content = .order(order)
            default:
                throw ReceivingError(.invalidInput, "\(ReceivingClient.printable(String(text.prefix(40)))) is not a purchase order, vendor card, material or product label.")
            }
        } catch {
            content = .refused(code: error.code, message: error.message)
        }
        return KioskLookup(camera: camera, seenAt: seenAt, content: content)
    }

    /// The payload class of typed text: JSON is read as a QR code would be, 12-13 digits as an
    /// EAN-13/UPC-A, anything else as Code 128 (PO, material and custom labels are printed so).
    /// Decision: a wedge scanner does not say which symbology it read, and these are the ones the
    /// dock's labels use; the camera path keeps the real symbology.
    public static func typedClass(_ text: String, classifier: PayloadClassifier) -> String {
        let digits = text.utf8.allSatisfy { (48...57).contains($0) }
        let symbology: Symbology = text.hasPrefix("{") ? .qr : (digits && (12...13).contains(text.utf8.count) ? .ean13 : .code128)
        return classifier.classify(text: text, symbology: symbology).className
    }
}
