import Glibc

/// A bounds-checked walk over a JPEG's marker structure, for the two things TurboJPEG does not
/// tell: the Exif APP1 payload (orientation) and whether the stream simply stops early.
enum JPEGMarkers {
    /// The payload of the first APP1 segment that starts with "Exif\0\0", without that
    /// header (so it starts at the TIFF header), looked for before the first scan.
    static func exifPayload(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var result: UnsafeRawBufferPointer?
        walkHeaders(bytes) { marker, payload in
            guard marker == 0xE1, payload.count >= 6, payload.starts(with: exifHeader) else { return true }
            result = UnsafeRawBufferPointer(rebasing: payload[6...])
            return false
        }
        return result
    }

    /// What the frame header (SOFn) says, for when TurboJPEG's header call refuses a file that
    /// libjpeg can still decode.
    struct Frame: Equatable {
        let width: Int
        let height: Int
        let components: Int
    }

    /// The first frame header before any scan, validated (1, 3 or 4 components; height 0,
    /// which defers to a DNL marker, is refused).
    static func frame(_ bytes: UnsafeRawBufferPointer) -> Frame? {
        var result: Frame?
        walkHeaders(bytes) { marker, payload in
            // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC).
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) else { return true }
            if payload.count >= 6 {
                let height = Int(payload[1]) << 8 | Int(payload[2])
                let width = Int(payload[3]) << 8 | Int(payload[4])
                let components = Int(payload[5])
                if width > 0, height > 0, [1, 3, 4].contains(components), payload.count >= 6 + 3 * components {
                    result = Frame(width: width, height: height, components: components)
                }
            }
            return false
        }
        return result
    }

    /// Calls `visit(marker, payload)` for each length-prefixed segment before the first scan,
    /// until it returns false. Every length is checked against the data.
    private static func walkHeaders(_ bytes: UnsafeRawBufferPointer, _ visit: (UInt8, UnsafeRawBufferPointer) -> Bool) {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return }
        var offset = 2
        while offset < bytes.count {
            guard bytes[offset] == 0xFF else { return }
            // Markers may be padded with any number of 0xFF fill bytes.
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return }
            let marker = bytes[offset]
            offset += 1
            if isStandalone(marker) { continue }
            // SOS (scan data follows) or EOI: headers are over.
            if marker == 0xDA || marker == 0xD9 { return }
            guard bytes.count - offset >= 2 else { return }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2, bytes.count - offset >= length else { return }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + length)])
            guard visit(marker, payload) else { return }
            offset += length
        }
    }

    private static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"

    /// Markers without a length field: TEM, RST0-7 (and SOI, handled before the walk).
    private static func isStandalone(_ marker: UInt8) -> Bool {
        marker == 0x01 || (0xD0...0xD8).contains(marker)
    }

    /// True when the data ends before an EOI marker: cut off, as opposed to damaged.
    ///
    /// Walks length-prefixed segments; after each SOS it searches the entropy-coded data for
    /// the next marker (0xFF followed by neither 0x00 stuffing nor RSTn). Bytes after EOI are
    /// ignored, and so are EOIs inside segments (an Exif thumbnail has its own).
    static func isTruncated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 2 else { return true }
        var offset = 2
        var inScan = false
        while offset < bytes.count {
            if inScan {
                // memchr: entropy-coded data is most of the file, so skip it fast.
                guard let found = memchr(base + offset, 0xFF, bytes.count - offset) else { return true }
                offset = base.distance(to: UnsafeRawPointer(found))
                guard offset + 1 < bytes.count else { return true }
                let next = bytes[offset + 1]
                if next == 0x00 || next == 0xFF || (0xD0...0xD7).contains(next) {
                    offset += next == 0xFF ? 1 : 2
                    continue
                }
                inScan = false
            }
            guard bytes[offset] == 0xFF else {
                offset += 1  // garbage between segments; libjpeg skips it with a warning
                continue
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { return true }
            let marker = bytes[offset]
            offset += 1
            if marker == 0xD9 { return false }
            if isStandalone(marker) || marker == 0x00 { continue }
            guard bytes.count - offset >= 2 else { return true }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2 else { return false }  // malformed, not short
            guard bytes.count - offset >= length else { return true }
            offset += length
            if marker == 0xDA { inScan = true }
        }
        return true
    }
}
