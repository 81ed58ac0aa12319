/// What makes two reads the same code for `RepeatFilter`: symbology and payload bytes.
struct RepeatFilterKey: Hashable, Sendable {
    let format: BarcodeFormat
    let bytes: [UInt8]
}
