import EdgeCapture

/// One line of `edge cameras --json`; its shape is models/cameras.schema.json.
struct CameraListing: Encodable {
    struct Format: Encodable {
        let fourcc: String
        let name: String
        let sizes: [String]
        let minSize: String?
        let maxSize: String?

        enum CodingKeys: String, CodingKey {
            case fourcc, name, sizes
            case minSize = "min_size"
            case maxSize = "max_size"
        }
    }

    struct Control: Encodable {
        let name: String
        let min: Int
        let max: Int
        let `default`: Int
    }

    let node: String
    let card: String
    let driver: String
    let bus: String
    let usb: String?
    let serial: String?
    let formats: [Format]
    let controls: [Control]?

    init(_ info: CameraInfo, controls: [CameraControl]?) {
        node = info.node
        card = info.capabilities.card
        driver = info.capabilities.driver
        bus = info.capabilities.busInfo
        usb = info.identity.usbID
        serial = info.identity.serial
        formats = info.formats.map {
            Format(fourcc: $0.pixelFormat.description, name: $0.name, sizes: $0.sizes.map(\.description),
                   minSize: $0.minimumSize?.description, maxSize: $0.maximumSize?.description)
        }
        self.controls = controls?.map { Control(name: $0.name, min: $0.minimum, max: $0.maximum, default: $0.defaultValue) }
    }
}
