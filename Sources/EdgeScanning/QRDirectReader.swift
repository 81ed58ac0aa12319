import Glibc  // hypot
import EdgeImaging

/// edge's own QR reader, straight from the image: the still-image plan's first pass when only
/// QR is read, after the first zbar scan when 1D symbologies are read too (`BarcodeReader.plan`,
/// pass `qr-direct`), because zbar's per-pixel scan costs several times what a QR code needs
/// (issue #32: zbar's sparse pass took 0.4-0.6 ms a QR photo where zxing-cpp reads them in 0.1).
///
/// The classic way, as zxing does it, written here from the QR standard's reference decoding
/// and edge's own pieces:
/// - a threshold per 8 x 8 block (`LocalThreshold`), so uneven light splits dark from light
///   locally, computed once and never turned into a binarised copy;
/// - finder patterns by their 1:1:3:1:1 runs along every second row, confirmed down and across
///   (`QRFinderLocator`);
/// - finder triples in the rectifier's order (`QRRectifier.orient`), the size from the finder
///   spacing over the module size, the module size corrected for the code's turn (a row crosses
///   a turned finder on its diagonal), that version and one either side;
/// - from version 2 on, the alignment pattern near where the finders' parallelogram puts it
///   (`alignment`, within 3 modules, then 6), and one homography from it and the finder
///   centres; failing that, or for version 1, the parallelogram's fourth corner;
/// - the module centres sampled against their block's threshold and decoded with Reed-Solomon
///   by `QRModuleDecoder`, which returns no text rather than a wrong one.
///
/// What it does not read (a code without its three finders, mirrored, light on dark, on a bent
/// surface, version 1 under perspective, or too blurred for single-pixel samples) the zbar
/// passes after it still do: it only adds a cheaper way to the same reads. Work is bounded by
/// the image (one pass over its pixels for the thresholds, every second row for the finders,
/// at most `capacity` finders kept, 12 of them paired and `attempts` triples tried, a grid of
/// at most 177 x 177) and checked against the deadline.
struct QRDirectReader {
    /// A code read: its content, its corners in the image in zbar's order (top-left, bottom-left,
    /// bottom-right, top-right of the code) and which way it faces.
    struct Read {
        let content: QRModuleDecoder.Content
        let corners: [(x: Double, y: Double)]
        let orientation: SymbolOrientation
    }

    /// Finders kept from the row scan; a clean photo has 3 per code, a busy one a few false ones.
    static let capacity = 24
    /// Finder triples decoded at most, best-scored first.
    static let attempts = 6

    /// 0x01 in every byte: multiplied by a byte, that byte in all eight.
    private static let everyByte = SIMD2<UInt64>(repeating: 0x0101_0101_0101_0101)

    let view: ImageView
    private let threshold: LocalThreshold

    private init(view: ImageView) {
        self.view = view
        threshold = LocalThreshold(view)
    }

    /// Every code whose three finder patterns this image shows and whose modules decode.
    static func read(_ view: ImageView, budget: WorkBudget) throws(TransformError) -> [Read] {
        guard view.width >= 21, view.height >= 21 else { return [] }
        let reader = QRDirectReader(view: view)
        let finders = try reader.finders(budget: budget)
        guard finders.count >= 3 else { return [] }
        return try reader.codes(from: finders, budget: budget)
    }

    /// The finder patterns `read` starts from, most often seen first (for tests).
    static func finders(in view: ImageView, budget: WorkBudget) throws(TransformError) -> [QRFinderLocator.Finder] {
        guard view.width >= 21, view.height >= 21 else { return [] }
        return try QRDirectReader(view: view).finders(budget: budget)
    }

    @inline(__always)
    private func isDark(_ x: Int, _ y: Int) -> Bool {
        view.pixels[y * view.rowStride + x] <= threshold.at(x, y)
    }

    // MARK: - Finder patterns

    /// Finder patterns along every second row, most often seen first.
    ///
    /// A row is classified 16 pixels (two threshold blocks) at a time: one SIMD compare gives the
    /// dark lanes, gathered into bits (`laneBits`), and only the lanes where the colour
    /// changes are visited (SIMD8 compares were compiled lane by lane; SIMD16 ones are one SSE2
    /// instruction). Walking pixel by pixel mispredicted a branch at every change, which
    /// a QR code has every few pixels: that was a third of a clean photo's read.
    private func finders(budget: WorkBudget) throws(TransformError) -> [QRFinderLocator.Finder] {
        var found: [QRFinderLocator.Finder] = []
        var meter = budget.meter("qr-direct: finder search")
        let w = view.width, h = view.height
        guard let pixels = view.pixels.baseAddress else { return [] }
        let everyByte = Self.everyByte
        for y in stride(from: 1, to: h, by: 2) {
            try meter.advance(by: w)
            let row = pixels + y * view.rowStride
            threshold.row(y) { limits in
                var runs = RowRuns(dark: row[0] <= limits[0])
                var previous: UInt64 = runs.dark ? 1 : 0  // the lane before: no change at pixel 0
                let pairs = w >> 4
                for q in 0..<pairs {
                    let x0 = q << 4
                    // Each half's threshold in all its bytes.
                    let limit = unsafeBitCast(SIMD2<UInt64>(UInt64(limits[2 * q]), UInt64(limits[2 * q + 1])) &* everyByte,
                                              to: SIMD16<UInt8>.self)
                    let mask = UInt64((UnsafeRawPointer(row + x0).loadUnaligned(as: SIMD16<UInt8>.self) .<= limit).laneBits)
                    var changes = (mask ^ (mask << 1 | previous)) & 0xFFFF
                    previous = mask >> 15
                    while changes != 0 {
                        let x = x0 + changes.trailingZeroBitCount
                        if let r = runs.end(at: x), let f = confirm(endX: x, y: y, runs: r) { QRFinderLocator.merge(f, into: &found, capacity: Self.capacity) }
                        changes &= changes - 1
                    }
                }
                for x in (pairs << 4)...w where x == w || (row[x] <= limits[x >> LocalThreshold.shift]) != runs.dark {
                    if let r = runs.end(at: x), let f = confirm(endX: x, y: y, runs: r) { QRFinderLocator.merge(f, into: &found, capacity: Self.capacity) }
                }
            }
        }
        return found.sorted { $0.hits > $1.hits }
    }

    /// The runs along one row: the five before the current one, which a dark run's end checks
    /// for a finder's proportions. A value with a mutating method, not a local function over
    /// captured variables: those were accessed through run-time exclusivity checks at every
    /// colour change.
    private struct RowRuns {
        var dark: Bool
        var r = (0, 0, 0, 0, 0), count = 0, start = 0

        init(dark: Bool) { self.dark = dark }

        /// Ends the current run at `x`; the five runs ending there when they are dark, light,
        /// dark, light, dark in a finder's proportions.
        mutating func end(at x: Int) -> (Int, Int, Int, Int, Int)? {
            r = (r.1, r.2, r.3, r.4, x - start)
            count += 1
            start = x
            defer { dark.toggle() }
            // The middle run longer than its neighbours first: implied by the proportions at this
            // tolerance, and most runs fail it at once.
            guard dark && r.2 > r.1 && r.2 > r.3 && count >= 5 && QRFinderLocator.matches(r, tolerance: (1, 2)) else { return nil }
            return r
        }
    }

    /// The finder whose row runs end at `endX` on row `y`, checked down its middle column and
    /// then across its middle row, centred both ways.
    private func confirm(endX: Int, y: Int, runs r: (Int, Int, Int, Int, Int)) -> QRFinderLocator.Finder? {
        let total = r.0 + r.1 + r.2 + r.3 + r.4
        let x = endX - r.4 - r.3 - (r.2 + 1) / 2
        guard let down = QRFinderLocator.crossCheck(from: y, count: view.height, total: total, tolerance: (1, 2),
                                                    dark: { isDark(x, $0) }) else { return nil }
        let cy = Int(down.centre)
        guard let across = QRFinderLocator.crossCheck(from: x, count: view.width, total: down.total, tolerance: (1, 2),
                                                      dark: { isDark($0, cy) }) else { return nil }
        return QRFinderLocator.Finder(x: across.centre, y: down.centre, module: Double(across.total + down.total) / 14, hits: 1)
    }

    // MARK: - Codes

    /// The codes of the best finder triples; a triple that decodes uses up its finders.
    private func codes(from finders: [QRFinderLocator.Finder], budget: WorkBudget) throws(TransformError) -> [Read] {
        typealias Triple = (score: Double, corner: QRFinderLocator.Finder, right: QRFinderLocator.Finder, down: QRFinderLocator.Finder)
        // The 12 most seen (220 triples): four codes' finders, or three codes' and the false ones
        // a busy photo adds.
        let finders = Array(finders.prefix(12))
        var triples: [Triple] = []
        for i in 0..<finders.count {
            for j in (i + 1)..<finders.count {
                for k in (j + 1)..<finders.count {
                    triples += QRRectifier.orient(finders[i], finders[j], finders[k])
                }
            }
        }
        var reads: [Read] = []
        var used: [QRFinderLocator.Finder] = []
        for t in triples.sorted(by: { $0.score < $1.score }).prefix(Self.attempts) {
            if used.contains(t.corner) || used.contains(t.right) || used.contains(t.down) { continue }
            try budget.checkTime(for: "qr-direct: decoding")
            if let read = decode(corner: t.corner, right: t.right, down: t.down) {
                reads.append(read)
                used += [t.corner, t.right, t.down]
            }
        }
        return reads
    }

    /// The code with these finders, at the version their spacing gives or one either side.
    private func decode(corner c: QRFinderLocator.Finder, right r: QRFinderLocator.Finder, down d: QRFinderLocator.Finder) -> Read? {
        let u = (x: r.x - c.x, y: r.y - c.y), v = (x: d.x - c.x, y: d.y - c.y)
        let lu = hypot(u.x, u.y), lv = hypot(v.x, v.y)
        // A row or column crosses a finder turned by a from its axes over 7 / max(|cos a|, |sin a|)
        // modules: the runs' module is corrected by that factor along each axis.
        let turn = (max(abs(u.x), abs(u.y)) / lu + max(abs(v.x), abs(v.y)) / lv) / 2
        let module = (c.module + r.module + d.module) / 3 * turn
        guard module > 0 else { return nil }
        let estimate = Int((((lu + lv) / 2 / module + 7 - 17) / 4).rounded())
        for version in [estimate, estimate + 1, estimate - 1] where (1...40).contains(version) {
            let dimension = 17 + 4 * version
            if let read = decode(c, r, d, dimension: dimension) { return read }
        }
        return nil
    }

    /// The code as `dimension` modules across: with the parallelogram's fourth corner, then
    /// (version 2 and up) with the alignment pattern found near where that corner's map puts it.
    private func decode(_ c: QRFinderLocator.Finder, _ r: QRFinderLocator.Finder, _ d: QRFinderLocator.Finder, dimension: Int) -> Read? {
        let n = Double(dimension), span = n - 7
        let finderCentres = [(x: 3.5, y: 3.5), (x: n - 3.5, y: 3.5), (x: 3.5, y: n - 3.5)]
        let centres = [(x: c.x, y: c.y), (x: r.x, y: r.y), (x: d.x, y: d.y)]
        if dimension >= 25 {
            // One module along the code's rows and columns, from the finder centres.
            let mu = ((r.x - c.x) / span, (r.y - c.y) / span), mv = ((d.x - c.x) / span, (d.y - c.y) / span)
            let a = n - 6.5 - 3.5
            let guess = (x: c.x + a * mu.0 + a * mv.0, y: c.y + a * mu.1 + a * mv.1)
            if let found = alignment(near: guess, u: mu, v: mv) ?? alignment(near: guess, u: mu, v: mv, radius: 6, least: 21) {
                if let map = Homography(from: finderCentres + [(n - 6.5, n - 6.5)], to: centres + [found]),
                   let read = decode(map, dimension: dimension, turnedBy: (r.x - c.x, r.y - c.y)) {
                    return read
                }
            }
        }
        let parallelogram = (x: r.x + d.x - c.x, y: r.y + d.y - c.y)
        guard let map = Homography(from: finderCentres + [(n - 3.5, n - 3.5)], to: centres + [parallelogram]) else { return nil }
        return decode(map, dimension: dimension, turnedBy: (r.x - c.x, r.y - c.y))
    }

    /// The alignment pattern's centre within 3 modules of `guess` (`u`, `v`: one module along the
    /// code's rows and columns), at half-module steps: the point whose 5 x 5 modules best match
    /// the pattern (dark centre, light ring, dark ring), at least 22 of 25, the nearest of equals.
    /// Every candidate's modules lie on one half-module lattice of 21 x 21 points around the
    /// guess, classified once (the correlation search over the same points cost a third of a
    /// clean photo's read).
    private func alignment(near guess: (x: Double, y: Double), u: (Double, Double), v: (Double, Double), radius: Int = 3,
                           least: Int = 22) -> (x: Double, y: Double)? {
        let steps = 2 * radius, mid = steps + 4, side = 2 * mid + 1
        var dark = [Bool](repeating: false, count: side * side)
        for j in 0..<side {
            for i in 0..<side {
                let a = Double(i - mid) / 2, b = Double(j - mid) / 2
                let x = guess.x + a * u.0 + b * v.0, y = guess.y + a * u.1 + b * v.1
                // Outside the image reads light.
                guard x >= 0, y >= 0, x < Double(view.width), y < Double(view.height) else { continue }
                dark[j * side + i] = isDark(Int(x), Int(y))
            }
        }
        // The best score, and the sum and count of the offsets that reach it: a crisp pattern
        // scores its best over a plateau about a module wide, whose centre is the pattern's
        // (taking the first or the nearest best put the corners up to half a module off).
        var best = (score: -1, sx: 0, sy: 0, count: 0)
        for sy in -steps...steps {
            for sx in -steps...steps {
                var score = 0
                for b in -2...2 {
                    for a in -2...2 where dark[(mid + sy + 2 * b) * side + mid + sx + 2 * a] == (max(abs(a), abs(b)) != 1) { score += 1 }
                }
                if score > best.score {
                    best = (score, sx, sy, 1)
                } else if score == best.score {
                    best = (score, best.sx + sx, best.sy + sy, best.count + 1)
                }
            }
        }
        guard best.score >= least else { return nil }
        let a = Double(best.sx) / Double(2 * best.count), b = Double(best.sy) / Double(2 * best.count)
        let coarse = (x: guess.x + a * u.0 + b * v.0, y: guess.y + a * u.1 + b * v.1)
        // To the pixel: the centroid of the dark pixels within 0.95 modules of it. The coarse
        // centre is within half a module, so on any turn that circle stays inside the light ring
        // (the dark ring starts 1.5 modules out) and holds only the centre module's dark pixels.
        // Taking the lattice point itself put the far corner of a clean 4 px code two pixels off.
        let reach = 0.95 * max(1, hypot(u.0, u.1), hypot(v.0, v.1))
        let x0 = max(0, Int(coarse.x - reach)), x1 = min(view.width - 1, Int(coarse.x + reach))
        let y0 = max(0, Int(coarse.y - reach)), y1 = min(view.height - 1, Int(coarse.y + reach))
        guard x0 <= x1, y0 <= y1 else { return coarse }
        var sum = (x: 0.0, y: 0.0), count = 0.0
        for y in y0...y1 {
            for x in x0...x1 where hypot(Double(x) + 0.5 - coarse.x, Double(y) + 0.5 - coarse.y) <= reach && isDark(x, y) {
                sum = (sum.x + Double(x) + 0.5, sum.y + Double(y) + 0.5)
                count += 1
            }
        }
        return count > 0 ? (sum.x / count, sum.y / count) : coarse
    }

    /// The grid `map` (module coordinates to pixels) puts on the image, decoded.
    private func decode(_ map: Homography, dimension n: Int, turnedBy along: (Double, Double)) -> Read? {
        var modules = [Bool](repeating: false, count: n * n)
        let w = Double(view.width), h = Double(view.height)
        for my in 0..<n {
            // Along a row of modules the map's numerators and denominator grow linearly.
            var line = map.line(from: (0.5, Double(my) + 0.5), step: 1)
            for mx in 0..<n {
                let p = line.next()
                // Outside the image (or not a number) reads light.
                guard p.x >= 0, p.y >= 0, p.x < w, p.y < h else { continue }
                modules[my * n + mx] = isDark(Int(p.x), Int(p.y))
            }
        }
        guard let content = QRModuleDecoder(dimension: n, modules: modules)?.decode() else { return nil }
        let d = Double(n)
        let corners = [(0.0, 0.0), (0, d), (d, d), (d, 0)].map { map.apply($0.0, $0.1) }
        // Which way the code's rows run: zbar's orientations name where its top points.
        let orientation: SymbolOrientation = abs(along.0) >= abs(along.1) ? (along.0 > 0 ? .up : .down) : (along.1 > 0 ? .right : .left)
        return Read(content: content, corners: corners, orientation: orientation)
    }
}

/// A dark/light threshold for every 8 x 8 block of an image, the way zxing's hybrid binarizer
/// makes them: a block's mean, or, where its pixels span less than 24 grey levels (flat paper or
/// flat ink), half its minimum, raised to its upper and left neighbours' level when the block is
/// not darker than they are (a flat block inside a dark module stays dark); then each block's
/// threshold is the mean of the 5 x 5 blocks around it, so a module larger than a block still
/// has both colours in its window. Blocks are read in pairs, 16 pixels a load; at the right
/// edge the last pair is the row's last 16 pixels, and a last block alone, like the bottom
/// blocks, is the last full 8 pixels, overlapping its neighbour. Needs an image of at least
/// 16 x 8 (a smaller one gets threshold 0: nothing is dark; the reader needs 21 x 21).
struct LocalThreshold {
    static let shift = 3
    private let columns: Int
    private let values: [UInt8]

    init(_ view: ImageView) {
        let w = view.width, h = view.height, stride = view.rowStride
        // Sized by the image, which has passed the reader's pixel limit: two Int arrays and one
        // byte array of a block each, 17 bytes per 64 pixels.
        let columns = (w + 7) >> Self.shift, rows = (h + 7) >> Self.shift
        var levels = [Int](repeating: 0, count: columns * rows)
        if let base = view.pixels.baseAddress, w >= 16 {
            levels.withUnsafeMutableBufferPointer { levels in
                for by in 0..<rows {
                    let y0 = min(by << Self.shift, h - 8)
                    for bx in Swift.stride(from: 0, to: columns, by: 2) {
                        // Two blocks a load, each block one 64-bit word of the vector; only
                        // operations that compile to single SSE2 instructions (SIMD8 types and
                        // lane-by-lane reductions were compiled to loops over the lanes here).
                        let x0 = min(bx << Self.shift, w - 16)
                        var low = SIMD16<UInt8>(repeating: 255), high = SIMD16<UInt8>(repeating: 0), sum = SIMD2<UInt64>(repeating: 0)
                        for dy in 0..<8 {
                            let v = UnsafeRawPointer(base + (y0 + dy) * stride + x0).loadUnaligned(as: SIMD16<UInt8>.self)
                            low = low.replacing(with: v, where: v .< low)
                            high = high.replacing(with: v, where: v .> high)
                            let words = unsafeBitCast(v, to: SIMD2<UInt64>.self)
                            // Bytes added in pairs into 16-bit fields: at most 8 x 510, no carry out.
                            sum &+= (words & Self.evenBytes) &+ ((words &>> 8) & Self.evenBytes)
                        }
                        // Each word's byte 0 becomes the minimum (maximum) of its 8 bytes; the
                        // zeros shifted in reach only bytes that are not read.
                        var s = Self.shifted(low, 8)
                        low = low.replacing(with: s, where: s .< low)
                        s = Self.shifted(low, 16)
                        low = low.replacing(with: s, where: s .< low)
                        s = Self.shifted(low, 32)
                        low = low.replacing(with: s, where: s .< low)
                        s = Self.shifted(high, 8)
                        high = high.replacing(with: s, where: s .> high)
                        s = Self.shifted(high, 16)
                        high = high.replacing(with: s, where: s .> high)
                        s = Self.shifted(high, 32)
                        high = high.replacing(with: s, where: s .> high)
                        let lows = unsafeBitCast(low, to: SIMD2<UInt64>.self), highs = unsafeBitCast(high, to: SIMD2<UInt64>.self)
                        // A last block alone is the load's upper half (the row's last 8 pixels).
                        for block in bx..<min(bx + 2, columns) {
                            let lane = block == columns - 1 && block == bx ? 1 : block - bx
                            let lo = Int(lows[lane] & 0xFF), hi = Int(highs[lane] & 0xFF)
                            var level = Int(truncatingIfNeeded: (sum[lane] &* 0x0001_0001_0001_0001) >> 48) >> 6
                            if hi - lo <= 24 {
                                level = lo / 2
                                if by > 0 && block > 0 {
                                    let i = by &* columns &+ block
                                    let neighbours = (levels[i &- columns] &+ 2 &* levels[i &- 1] &+ levels[i &- columns &- 1]) / 4
                                    if lo < neighbours { level = neighbours }
                                }
                            }
                            levels[by &* columns &+ block] = level
                        }
                    }
                }
            }
        }
        // The 5 x 5 means, separably, as sliding sums; the window is moved inward at the edges,
        // never shrunk (unless the image has fewer than 5 blocks that way).
        let across = min(5, columns), down = min(5, rows)
        var sums = [Int](repeating: 0, count: columns * rows)
        var values = [UInt8](repeating: 0, count: columns * rows)
        levels.withUnsafeBufferPointer { levels in
            sums.withUnsafeMutableBufferPointer { sums in
                for by in 0..<rows {
                    let row = by &* columns
                    var s = 0
                    for c in 0..<across { s &+= levels[row &+ c] }
                    for bx in 0..<columns {
                        // Window start max(0, min(bx - 2, columns - across)): it moves from bx = 3
                        // up to the last start.
                        let first = max(0, min(bx &- 2, columns &- across))
                        if bx >= 3 && first == bx &- 2 { s &+= levels[row &+ first &+ across &- 1] &- levels[row &+ first &- 1] }
                        sums[row &+ bx] = s
                    }
                }
            }
        }
        sums.withUnsafeBufferPointer { sums in
            values.withUnsafeMutableBufferPointer { values in
                var window = [Int](repeating: 0, count: columns)
                for r in 0..<down { for bx in 0..<columns { window[bx] &+= sums[r &* columns &+ bx] } }
                let area = across * down
                for by in 0..<rows {
                    let first = max(0, min(by &- 2, rows &- down))
                    if by >= 3 && first == by &- 2 {
                        for bx in 0..<columns { window[bx] &+= sums[(first &+ down &- 1) &* columns &+ bx] &- sums[(first &- 1) &* columns &+ bx] }
                    }
                    for bx in 0..<columns { values[by &* columns &+ bx] = UInt8(truncatingIfNeeded: window[bx] / area) }
                }
            }
        }
        self.columns = columns
        self.values = values
    }

    /// 0x00FF in every 16-bit field: a word's even bytes.
    private static let evenBytes = SIMD2<UInt64>(repeating: 0x00FF_00FF_00FF_00FF)

    /// Each 64-bit half of `v` shifted down by `bits`.
    @inline(__always)
    private static func shifted(_ v: SIMD16<UInt8>, _ bits: UInt64) -> SIMD16<UInt8> {
        unsafeBitCast(unsafeBitCast(v, to: SIMD2<UInt64>.self) &>> SIMD2(repeating: bits), to: SIMD16<UInt8>.self)
    }

    /// The threshold at pixel (x, y): dark is at or below it.
    @inline(__always)
    func at(_ x: Int, _ y: Int) -> UInt8 {
        // Unchecked: callers pass a pixel of the image, whose block always exists.
        values.withUnsafeBufferPointer { $0[(y &>> Self.shift) &* columns &+ (x &>> Self.shift)] }
    }

    /// The thresholds of row `y`'s blocks, one per 8 pixels, for a loop over the row.
    func row(_ y: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let start = (y >> Self.shift) * columns
        values.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<(start + columns)])) }
    }
}
