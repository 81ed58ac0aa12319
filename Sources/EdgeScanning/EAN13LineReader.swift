import CZbar
import EdgeImaging

/// edge's own EAN-13 reader (ISO/IEC 15420), along every second row and column of an image: the
/// pass `ean-lines`, after zbar's passes read nothing. Along a few lines (`sparse+ean-lines`) it
/// is also the first pass when EAN-13 is the only symbology read (`read(_:budget:method:sparse:)`).
///
/// Why: zbar's EAN decoder gives up on bars whose widths drift along the code: a label printed on
/// a curve, bars with jagged edges (ean13-1/10.png of the development photos, read by zxing-cpp
/// and by none of zbar's passes). This reader
/// - finds edges where the smoothed brightness changes fastest, so ink spread or a threshold
///   shifts a bar's two edges alike and an edge needs no fixed grey level;
/// - decodes each character from its own four widths scaled to its 7 modules, so the module
///   width may change along the line;
/// - trusts no single line. A line's read must pass the guard patterns, 3 modules of quiet zone
///   on both sides, the parity pattern of the first digit and the check digit; a text is
///   reported only when at least `minimumLines` lines read it and it has `dominance` times the
///   lines of any other text. Blurred bars read as other valid EAN-13s on a few lines (what
///   zbar's sharpened passes did on ean13-1/37.png), never on most of them.
///
/// Reports at most one code per image: the pass is a last resort for one damaged label, and zbar's
/// passes before it read labels that share an image. No add-ons.
enum EAN13LineReader {
    static let minimumLines = 3
    static let dominance = 3

    /// How a line is read: from the widths between its edges (`ean-lines`), or by fitting it to
    /// blurred characters (`ean-model`, `EAN13ModelReader`).
    enum Method {
        case edges
        case model

        /// Every second line for edges; every fourth for the model, which costs some 20 times
        /// more a line and is meant for one large blurred label.
        var lineStep: Int { self == .edges ? 2 : 4 }
        var passName: String { self == .edges ? "ean-lines" : "ean-model" }
    }

    /// One line's valid read: the text, the pixel positions of its guards' outer edges, and
    /// whether it was read against the line's direction.
    struct Read {
        let text: [UInt8]
        let start: Int
        let end: Int
        let reversed: Bool
    }

    /// Lines across the image the sparse pass (`sparse+ean-lines`) reads in each direction.
    static let sparseLines = 21

    /// The code read, as a symbol in `view`'s coordinates, with the number of agreeing lines as
    /// its quality; none when no text won. Throws `.outOfTime` past the budget's deadline.
    ///
    /// `sparse` (`sparse+ean-lines`, the plan's first pass when EAN-13 is the only symbology
    /// read): `sparseLines` evenly spaced rows, then as many columns when the rows read nothing,
    /// and a text wins only when no line read another (`Tally.winner(unanimous:)`): two labels,
    /// or a doubtful one, are left to zbar's passes after it. Every second line is read
    /// unsmoothed: the smoothing that keeps a jagged bar's edges single merges 1-module bars of
    /// 2-3 px (a book cover's crop), which only the raw line keeps apart. Measured on the 37
    /// EAN-13 photos of the development set: 22 read, each with the text the whole plan reads;
    /// with smoothed lines only, 17; raw only, 20 (issue #32). When the rows read a text but not
    /// enough of it they cross the bars already, and the columns are not read.
    static func read(_ view: ImageView, budget: WorkBudget, method: Method = .edges, sparse: Bool = false) throws(TransformError) -> [ZbarSymbol] {
        var tally = Tally()
        var buffers = LineBuffers(length: max(view.width, view.height), forModel: method == .model)
        func positions(across length: Int) -> [(position: Int, smoothed: Bool)] {
            guard sparse else { return Swift.stride(from: 0, to: length, by: method.lineStep).map { ($0, true) } }
            let count = min(sparseLines, length)
            return (1..<(count + 1)).map { (length * $0 / (count + 1), $0 % 2 == 1) }
        }
        for (y, smoothed) in positions(across: view.height) {
            try budget.checkTime(for: method.passName)
            let row = UnsafeBufferPointer(rebasing: view.pixels[(y * view.rowStride)..<(y * view.rowStride + view.width)])
            for read in buffers.reads(row, smoothed: smoothed, method: method) {
                tally.add(read.text, from: (x: read.start, y: y), to: (x: read.end, y: y), orientation: read.reversed ? ZBAR_ORIENT_DOWN : ZBAR_ORIENT_UP)
            }
        }
        if sparse {
            // Rows that read a text but not enough of it cross the bars already: columns would not.
            if let won = tally.winner(unanimous: true) { return [won] }
            if !tally.isEmpty { return [] }
        }
        for (x, smoothed) in positions(across: view.width) {
            try budget.checkTime(for: method.passName)
            for read in buffers.reads(column: x, of: view, smoothed: smoothed, method: method) {
                tally.add(read.text, from: (x: x, y: read.start), to: (x: x, y: read.end), orientation: read.reversed ? ZBAR_ORIENT_LEFT : ZBAR_ORIENT_RIGHT)
            }
        }
        return tally.winner(unanimous: sparse).map { [$0] } ?? []
    }

    /// One line's working memory, made once per read and reused by every line.
    struct LineBuffers {
        /// A column, gathered (rows are read in place).
        private var column: [UInt8]
        /// The line smoothed, times 16, and its slope, times 32 (`Runs.slopes`).
        private var sums: [Int32]
        private var slopes: [Int32]
        /// The line and its slope in floating point, for `EAN13ModelReader` only.
        private var floatLine: [Float]
        private var floatSlope: [Float]

        init(length: Int, forModel: Bool) {
            column = [UInt8](repeating: 0, count: length)
            sums = [Int32](repeating: 0, count: length)
            slopes = sums
            floatLine = forModel ? [Float](repeating: 0, count: length) : []
            floatSlope = floatLine
        }

        /// Every valid read along `line`.
        mutating func reads(_ line: UnsafeBufferPointer<UInt8>, smoothed: Bool, method: Method) -> [Read] {
            guard line.count >= 8 else { return [] }
            let steepest = Runs.slopes(of: line, smoothed: smoothed, sums: &sums, slopes: &slopes)
            guard method == .model else { return Runs(slopes: slopes[..<line.count], steepest: steepest).reads() }
            for i in 0..<line.count {
                floatLine[i] = Float(line[i])
                floatSlope[i] = Float(slopes[i]) / 32
            }
            return EAN13ModelReader.reads(floatLine[..<line.count], slope: floatSlope)
        }

        /// Every valid read down column `x` of `view`.
        mutating func reads(column x: Int, of view: ImageView, smoothed: Bool, method: Method) -> [Read] {
            let n = view.height
            column.withUnsafeMutableBufferPointer { c in
                for y in 0..<n { c[y] = view.pixels[y * view.rowStride + x] }
            }
            // Through a local sharing the column's storage (no copy): `reads` mutates `self`.
            let gathered = column
            return gathered.withUnsafeBufferPointer { reads(UnsafeBufferPointer(rebasing: $0[..<n]), smoothed: smoothed, method: method) }
        }
    }

    /// Module widths (space, bar, space, bar) of the L-code digits 0-9. The R code has the same
    /// widths starting with a bar; the G code is the L code reversed.
    static let lCode: [[Float]] = [[3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
                                   [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2]]
    /// The G code's widths: the L code reversed, made once.
    static let gCode: [[Float]] = lCode.map { Array($0.reversed()) }
    /// The first digit, from which of the six left digits use the G code (bit 5 = the first).
    static let firstDigitByParity: [Int: UInt8] = [0b000000: 0, 0b001011: 1, 0b001101: 2, 0b001110: 3, 0b010011: 4,
                                                   0b011001: 5, 0b011100: 6, 0b010101: 7, 0b010110: 8, 0b011010: 9]

    /// The dark and light runs of one line, between its edges.
    struct Runs {
        /// Widths in pixels, and whether each is dark; the first and last run reach the line's ends.
        var widths: [Float] = []
        var dark: [Bool] = []
        /// Where each run starts.
        var starts: [Float] = []

        /// The line smoothed by [1 4 6 4 1] / 16 (when `smoothed`), times 16, into `sums`, and its
        /// slope (half the difference of its neighbours), times 32, into `slopes`; returns the
        /// steepest slope, times 32. In integers, which hold these sums exactly (as floating
        /// point did, at several times the cost: this runs on every pixel of every line).
        static func slopes(of line: UnsafeBufferPointer<UInt8>, smoothed: Bool, sums: inout [Int32], slopes: inout [Int32]) -> Int32 {
            let n = line.count
            precondition(n >= 8 && sums.count >= n && slopes.count >= n)
            return sums.withUnsafeMutableBufferPointer { s in
                if smoothed {
                    func at(_ i: Int) -> Int32 { Int32(line[min(n - 1, max(0, i))]) }
                    for i in [0, 1, n - 2, n - 1] { s[i] = at(i - 2) + 4 * at(i - 1) + 6 * at(i) + 4 * at(i + 1) + at(i + 2) }
                    for i in 2..<(n - 2) {
                        s[i] = Int32(line[i - 2]) &+ 4 &* Int32(line[i - 1]) &+ 6 &* Int32(line[i]) &+ 4 &* Int32(line[i + 1]) &+ Int32(line[i + 2])
                    }
                } else {
                    for i in 0..<n { s[i] = 16 &* Int32(line[i]) }
                }
                return slopes.withUnsafeMutableBufferPointer { d in
                    d[0] = 0
                    d[n - 1] = 0
                    for i in 1..<(n - 1) { d[i] = s[i + 1] &- s[i - 1] }
                    var steepest: Int32 = 0
                    for i in 1..<(n - 1) { steepest = max(steepest, abs(d[i])) }
                    return steepest
                }
            }
        }

        /// An edge is a local extreme of the slope of the line (`slopes`, times 32) of at least a
        /// tenth of the line's steepest slope (and 3 grey levels), placed to a fraction of a
        /// pixel by a parabola through its neighbours. Two extremes of one sign in a row (a
        /// shoulder on one edge) keep the steeper.
        init(slopes: ArraySlice<Int32>, steepest: Int32) {
            let n = slopes.count
            guard n >= 8 else { return }
            // |slope| >= threshold exactly when |slope x 32| >= this (32 x threshold is exact).
            let threshold = max(3, Float(steepest) / 32 / 10)
            let limit = Int32((threshold * 32).rounded(.up))
            var edges: [(position: Float, slope: Float)] = []
            slopes.withUnsafeBufferPointer { d in
                for i in 1..<(n - 1) {
                    let m = abs(d[i])
                    guard m >= limit, m >= abs(d[i - 1]), m > abs(d[i + 1]) else { continue }
                    let before = Float(d[i - 1]) / 32, s = Float(d[i]) / 32, after = Float(d[i + 1]) / 32
                    let curvature = before - 2 * s + after
                    let offset = curvature == 0 ? 0 : max(-0.5, min(0.5, 0.5 * (before - after) / curvature))
                    let edge = (position: Float(i) + offset, slope: s)
                    if let last = edges.last, (last.slope < 0) == (s < 0) {
                        if abs(s) > abs(last.slope) { edges[edges.count - 1] = edge }
                    } else {
                        edges.append(edge)
                    }
                }
            }
            guard let first = edges.first, let lastEdge = edges.last else { return }
            // Before a falling edge (light to dark) the line is light.
            var previous: Float = 0
            var isDark = first.slope > 0
            for edge in edges {
                widths.append(edge.position - previous)
                dark.append(isDark)
                starts.append(previous)
                previous = edge.position
                isDark.toggle()
            }
            widths.append(Float(n) - previous)
            dark.append(lastEdge.slope < 0)
            starts.append(previous)
        }

        /// Every valid EAN-13 along the line, read in both directions.
        func reads() -> [Read] {
            var found: [Read] = []
            let count = widths.count
            guard count >= 61 else { return found }
            for reversed in [false, true] {
                let width: (Int) -> Float = reversed ? { widths[count - 1 - $0] } : { widths[$0] }
                let isDark: (Int) -> Bool = reversed ? { dark[count - 1 - $0] } : { dark[$0] }
                for first in 1..<(count - 59) where isDark(first) {
                    // What `decode` requires of the quiet zone and the start guard (a guard run of
                    // at most 1.7 modules, a quiet zone of 3), in three comparisons before its
                    // 59-run sum; the slack keeps rounding from refusing what `decode` accepts.
                    let quiet = width(first - 1) * 1.7 * 1.001
                    guard quiet >= 3 * width(first), quiet >= 3 * width(first + 1), quiet >= 3 * width(first + 2) else { continue }
                    guard let text = Self.decode(width, from: first) else { continue }
                    // Pixel positions of the start guard's leading edge and the end guard's trailing edge.
                    let a = starts[reversed ? count - first : first], b = starts[reversed ? count - first - 59 : first + 59]
                    found.append(Read(text: text, start: Int(min(a, b).rounded()), end: Int(max(a, b).rounded()), reversed: reversed))
                }
            }
            return found
        }

        /// The 13 digits when the 59 runs from `first` (a bar) are a valid EAN-13 with its quiet zones.
        static func decode(_ width: (Int) -> Float, from first: Int) -> [UInt8]? {
            var total: Float = 0
            for i in first..<(first + 59) { total += width(i) }
            let module = total / 95
            guard width(first - 1) >= 3 * module, width(first + 59) >= 3 * module else { return nil }
            func guardFits(_ at: Int, _ count: Int, tolerance: Float) -> Bool {
                (at..<(at + count)).allSatisfy { abs(width($0) / module - 1) <= tolerance }
            }
            guard guardFits(first, 3, tolerance: 0.7), guardFits(first + 27, 5, tolerance: 0.8),
                  guardFits(first + 56, 3, tolerance: 0.7) else { return nil }
            var digits: [UInt8] = []
            var parity = 0
            for c in 0..<12 {
                let at = first + (c < 6 ? 3 : 8) + 4 * c
                guard let (digit, isG) = character(SIMD4(width(at), width(at + 1), width(at + 2), width(at + 3)), left: c < 6) else { return nil }
                digits.append(digit)
                if isG { parity |= 1 << (5 - c) }
            }
            guard let leading = firstDigitByParity[parity] else { return nil }
            let text = ([leading] + digits).map { $0 + 0x30 }
            return CheckDigits.isValidEAN13(text) ? text : nil
        }

        /// The digit whose widths are nearest (sum of differences, in modules, of at most 1.6) to
        /// these four scaled to 7 modules; on the left, also whether it is the G code.
        static func character(_ four: SIMD4<Float>, left: Bool) -> (UInt8, Bool)? {
            let sum = four[0] + four[1] + four[2] + four[3]
            guard sum > 0 else { return nil }
            let scaled = four * 7 / sum
            var best: (distance: Float, digit: UInt8, isG: Bool) = (.infinity, 0, false)
            for digit in 0..<10 {
                for isG in [false, true] where left || !isG {
                    let pattern: SIMD4<Float> = isG ? gCodes[digit] : lCodes[digit]
                    let difference = scaled - pattern
                    let d = difference.replacing(with: -difference, where: difference .< 0)
                    let distance = d[0] + d[1] + d[2] + d[3]
                    if distance < best.distance { best = (distance, UInt8(digit), isG) }
                }
            }
            return best.distance <= 1.6 ? (best.digit, best.isG) : nil
        }

        /// `lCode` and `gCode` as vectors, for `character`.
        static let lCodes = lCode.map { SIMD4($0[0], $0[1], $0[2], $0[3]) }
        static let gCodes = gCode.map { SIMD4($0[0], $0[1], $0[2], $0[3]) }
    }

    /// Lines per text, and where the first and last of them read it.
    struct Tally {
        private var entries: [[UInt8]: (lines: Int, first: [(x: Int, y: Int)], last: [(x: Int, y: Int)], orientation: zbar_orientation_t)] = [:]

        var isEmpty: Bool { entries.isEmpty }

        mutating func add(_ text: [UInt8], from a: (x: Int, y: Int), to b: (x: Int, y: Int), orientation: zbar_orientation_t) {
            if var entry = entries[text] {
                entry.lines += 1
                entry.last = [b, a]
                entries[text] = entry
            } else {
                entries[text] = (1, [a, b], [b, a], orientation)
            }
        }

        /// The text at least `minimumLines` lines read, with `dominance` times the lines of any
        /// other; `unanimous` (the sparse first pass, which zbar's passes follow when it reads
        /// nothing): and no line read another text at all.
        func winner(unanimous: Bool = false) -> ZbarSymbol? {
            let ranked = entries.sorted { $0.value.lines > $1.value.lines }
            guard let best = ranked.first, best.value.lines >= minimumLines else { return nil }
            if let second = ranked.dropFirst().first, unanimous || best.value.lines < dominance * second.value.lines { return nil }
            return ZbarSymbol(type: ZBAR_EAN13, data: best.key, points: best.value.first + best.value.last,
                              orientation: best.value.orientation, quality: best.value.lines, addOn: nil)
        }
    }
}
