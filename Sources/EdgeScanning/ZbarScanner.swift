import CZbar
import EdgeImaging

/// One symbol as zbar (or `EAN13LineReader`) returned it, before edge decodes text or maps points back.
struct ZbarSymbol {
    var type: zbar_symbol_type_t
    var data: [UInt8]
    var points: [(x: Int, y: Int)]
    var orientation: zbar_orientation_t
    var quality: Int
    var addOn: [UInt8]?
    /// One symbol of a structured-append sequence whose other symbols were not in the image.
    var partialSequence: Bool = false
    /// zbar's GS1 modifier: FNC1 in first position (GS1-128, GS1 QR). zbar drops that FNC1
    /// and hands later ones (separators) over as GS (0x1D).
    var gs1: Bool = false
}

/// The one seam over zbar's image scanner (`zbar_image_scanner_*`, `zbar_image_*`, `zbar_symbol_*`).
///
/// Not thread-safe, like the zbar object it owns: create one per task or thread.
final class ZbarScanner {
    private let zbar: ZbarLibrary
    private let scanner: OpaquePointer
    private let fourccY800: UInt
    /// The row and column densities configured now (0 before the first `setDensity`).
    private var rowDensity: Int32 = 0
    private var columnDensity: Int32 = 0

    /// `zbar_image_scanner_create` + `zbar_image_scanner_set_config`: everything off, then only
    /// the requested symbologies on (SCN-3: fewer symbologies must be faster).
    init(formats: Set<BarcodeFormat>, addOns: Bool, density: Int32 = 1) throws(ScanError) {
        let zbar = try ZbarLibrary.shared.get()
        self.zbar = zbar
        guard let s = zbar.imageScannerCreate() else {
            throw ScanError(.zbarFailure, "zbar could not create an image scanner (out of memory)")
        }
        scanner = s
        fourccY800 = UInt(edge_zbar_fourcc_y800())
        // ZBAR_NONE as the symbology addresses all of them.
        _ = zbar.imageScannerSetConfig(s, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        for format in formats {
            for type in format.zbarTypes {
                _ = zbar.imageScannerSetConfig(s, type, ZBAR_CFG_ENABLE, 1)
            }
        }
        if formats.contains(.code128) {
            // zbar's Code 128 minimum length is 0, so start + check + stop with no data is a read:
            // random noise scanned at many sizes makes that shape (CI saw one). A label with no
            // data is of no use to a station, so at least one data character is required.
            _ = zbar.imageScannerSetConfig(s, ZBAR_CODE128, ZBAR_CFG_MIN_LEN, 1)
        }
        if formats.contains(.qr) {
            // Binary mode: zbar hands over the payload bytes and edge decodes the text itself;
            // zbar's own charset guess turns UTF-8 into Shift_JIS/Big5 mojibake (SCN-4).
            _ = zbar.imageScannerSetConfig(s, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1)
        }
        if formats.contains(.ean13) && addOns {
            _ = zbar.imageScannerSetConfig(s, ZBAR_EAN2, ZBAR_CFG_ENABLE, 1)
            _ = zbar.imageScannerSetConfig(s, ZBAR_EAN5, ZBAR_CFG_ENABLE, 1)
        }
        setDensity(density, lines: .both)
    }

    /// ZBAR_CFG_Y_DENSITY (rows) and ZBAR_CFG_X_DENSITY (columns): from the next scan on, scan
    /// every `density`-th row and/or column; 0 turns that direction off.
    func setDensity(_ density: Int32, lines: ScanLines) {
        let rows: Int32 = lines == .columns ? 0 : density
        let columns: Int32 = lines == .rows ? 0 : density
        if rows != rowDensity {
            _ = zbar.imageScannerSetConfig(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, rows)
            rowDensity = rows
        }
        if columns != columnDensity {
            _ = zbar.imageScannerSetConfig(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, columns)
            columnDensity = columns
        }
    }

    deinit { zbar.imageScannerDestroy(scanner) }

    /// `zbar_scan_image` over 8-bit gray pixels (fourcc Y800). zbar's Y800 has no row stride, so
    /// a view with padded rows is packed first; packed views (our own images, most camera
    /// buffers) are scanned in place without a copy.
    func scan(_ view: ImageView) throws(ScanError) -> [ZbarSymbol] {
        guard view.width > 0, view.height > 0 else { return [] }
        if view.rowStride != view.width {
            return try scan(view.copy())
        }
        guard let zimg = zbar.imageCreate() else {
            throw ScanError(.zbarFailure, "zbar could not create an image (out of memory)")
        }
        defer { zbar.imageDestroy(zimg) }
        zbar.imageSetFormat(zimg, fourccY800)
        zbar.imageSetSize(zimg, UInt32(view.width), UInt32(view.height))
        // No cleanup handler: the memory belongs to the caller and outlives the zbar image.
        zbar.imageSetData(zimg, view.pixels.baseAddress, UInt(view.width * view.height), nil)
        let n = zbar.scanImage(scanner, zimg)
        if n < 0 {
            throw ScanError(.zbarFailure, "zbar failed to scan the image", context: ["width": "\(view.width)", "height": "\(view.height)"])
        }
        var symbols: [ZbarSymbol] = []
        var sym = zbar.imageFirstSymbol(zimg)
        while let s = sym {
            if zbar.symbolGetType(s) == ZBAR_PARTIAL {
                symbols += sequenceParts(s)
            } else {
                symbols.append(symbol(s))
            }
            sym = zbar.symbolNext(s)
        }
        return Self.attachingAddOns(symbols)
    }

    /// zbar 0.23 reports an EAN-2/EAN-5 add-on as a symbol of its own beside the EAN-13 (not as
    /// the ZBAR_COMPOSITE its API describes) when both are enabled. An add-on is attached to the
    /// EAN-13 whose box it continues: overlapping across the bars, and along them at most 3/4 of
    /// the EAN-13's length away. zbar places an add-on's points at its far end, so that distance
    /// includes the add-on itself: up to 12 modules of gap and 47 of EAN-5 make 59 of the EAN-13's
    /// 95 (half its length, the earlier bound, lost zint's EAN-5 add-ons). An add-on with no such
    /// EAN-13 is not a code on its own and is dropped (SCN-3 reports add-ons only with their EAN-13).
    static func attachingAddOns(_ symbols: [ZbarSymbol]) -> [ZbarSymbol] {
        let isAddOn = { (s: ZbarSymbol) in s.type == ZBAR_EAN2 || s.type == ZBAR_EAN5 }
        var addOns = symbols.filter(isAddOn)
        guard !addOns.isEmpty else { return symbols }
        var out: [ZbarSymbol] = []
        for var symbol in symbols where !isAddOn(symbol) {
            if symbol.type == ZBAR_EAN13, symbol.addOn == nil, let box = Box(symbol.points),
               let index = addOns.firstIndex(where: { Box($0.points).map { box.isContinued(by: $0) } ?? false }) {
                symbol.addOn = addOns.remove(at: index).data
            }
            out.append(symbol)
        }
        return out
    }

    /// An axis-aligned box around a symbol's points, for telling neighbours apart.
    struct Box {
        let x0: Int, x1: Int, y0: Int, y1: Int

        init?(_ points: [(x: Int, y: Int)]) {
            guard let x0 = points.map(\.x).min(), let x1 = points.map(\.x).max(),
                  let y0 = points.map(\.y).min(), let y1 = points.map(\.y).max() else { return nil }
            (self.x0, self.x1, self.y0, self.y1) = (x0, x1, y0, y1)
        }

        /// `other` lies next to this box along its longer side, within 3/4 of its length, and
        /// overlaps it across.
        func isContinued(by other: Box) -> Bool {
            let horizontal = x1 - x0 >= y1 - y0
            if horizontal {
                let gap = max(other.x0 - x1, x0 - other.x1)
                return other.y0 <= y1 && y0 <= other.y1 && gap <= (x1 - x0) * 3 / 4
            }
            let gap = max(other.y0 - y1, y0 - other.y1)
            return other.x0 <= x1 && x0 <= other.x1 && gap <= (y1 - y0) * 3 / 4
        }
    }

    func scan(_ image: GrayImage) throws(ScanError) -> [ZbarSymbol] {
        try image.withView { (view) throws(ScanError) in try scan(view) }
    }

    /// A QR structured-append sequence with symbols missing from the image comes back as a
    /// ZBAR_PARTIAL container whose components are the symbols read (ZBAR_QRCODE) and
    /// placeholders for the missing ones (ZBAR_PARTIAL). The components' own data is cut one
    /// byte short by zbar 0.23 (its offsets assume a break marker after every symbol), so the
    /// text comes from the container: the present symbols' data in sequence order, with one NUL
    /// byte where missing symbols interrupt it. Each run of consecutive present symbols becomes
    /// one result with their corners.
    /// Decision: report such runs marked as partial rather than drop them as zbar's own tools
    /// do: a sequence is often photographed one symbol at a time.
    private func sequenceParts(_ container: OpaquePointer) -> [ZbarSymbol] {
        var runs: [[ZbarSymbol]] = []
        var inRun = false
        var leadingGap = false
        var component = zbar.symbolFirstComponent(container)
        while let c = component {
            if zbar.symbolGetType(c) == ZBAR_QRCODE {
                if !inRun { runs.append([]) }
                runs[runs.count - 1].append(symbol(c))
                inRun = true
            } else {
                if runs.isEmpty { leadingGap = true }
                inRun = false
            }
            component = zbar.symbolNext(c)
        }
        var data = bytes(of: container)[...]
        if leadingGap {
            guard data.first == 0 else { return [] }
            data = data.dropFirst()
        }
        let pieces = data.split(separator: 0, maxSplits: max(0, runs.count - 1), omittingEmptySubsequences: false)
        // A payload holding NUL bytes itself would make the split ambiguous: then nothing is
        // reported rather than a wrongly cut text.
        guard !runs.isEmpty, pieces.count == runs.count else { return [] }
        return zip(runs, pieces).map { run, piece in
            let first = run[0]
            let points = run.count == 1 ? first.points : Self.boundingBox(run.flatMap(\.points))
            return ZbarSymbol(type: ZBAR_QRCODE, data: Array(piece), points: points, orientation: first.orientation,
                              quality: run.map(\.quality).min() ?? first.quality, addOn: nil, partialSequence: true, gs1: first.gs1)
        }
    }

    /// The corners of the axis-aligned box around `points`, in zbar's corner order.
    private static func boundingBox(_ points: [(x: Int, y: Int)]) -> [(x: Int, y: Int)] {
        guard let x0 = points.map(\.x).min(), let x1 = points.map(\.x).max(),
              let y0 = points.map(\.y).min(), let y1 = points.map(\.y).max() else { return [] }
        return [(x0, y0), (x0, y1), (x1, y1), (x1, y0)]
    }

    private func symbol(_ s: OpaquePointer) -> ZbarSymbol {
        let type = zbar.symbolGetType(s)
        var data = bytes(of: s)
        var addOn: [UInt8]? = nil
        if type == ZBAR_COMPOSITE {
            // A composite is the EAN-13 plus its EAN-2/5 add-on as components.
            var comp = zbar.symbolFirstComponent(s)
            var main: [UInt8]? = nil
            while let c = comp {
                let ct = zbar.symbolGetType(c)
                if ct == ZBAR_EAN2 || ct == ZBAR_EAN5 { addOn = bytes(of: c) } else { main = bytes(of: c) }
                comp = zbar.symbolNext(c)
            }
            if let main { data = main }
        }
        var points: [(x: Int, y: Int)] = []
        let count = zbar.symbolGetLocSize(s)
        for i in 0..<count {
            points.append((Int(zbar.symbolGetLocX(s, i)), Int(zbar.symbolGetLocY(s, i))))
        }
        let gs1 = zbar.symbolGetModifiers(s) & (1 << ZBAR_MOD_GS1.rawValue) != 0
        return ZbarSymbol(type: type, data: data, points: points, orientation: zbar.symbolGetOrientation(s),
                          quality: Int(zbar.symbolGetQuality(s)), addOn: addOn, gs1: gs1)
    }

    private func bytes(of s: OpaquePointer) -> [UInt8] {
        let length = Int(zbar.symbolGetDataLength(s))
        guard length > 0, let p = zbar.symbolGetData(s) else { return [] }
        return p.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }
}
