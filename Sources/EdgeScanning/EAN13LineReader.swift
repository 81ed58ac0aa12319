import CZbar
import EdgeImaging

/// edge's own EAN-13 reader (ISO/IEC 15420), along every second row and column of an image: the
/// pass `ean-lines`, after zbar's passes read nothing.
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

    /// The code read, as a symbol in `view`'s coordinates, with the number of agreeing lines as
    /// its quality; none when no text won. Throws `.outOfTime` past the budget's deadline.
    static func read(_ view: ImageView, budget: WorkBudget, method: Method = .edges) throws(TransformError) -> [ZbarSymbol] {
        var tally = Tally()
        var line = [Float](repeating: 0, count: max(view.width, view.height))
        var smooth = line, slope = line
        func reads(_ count: Int) -> [Read] {
            let runs = Runs(line[..<count], smooth: &smooth, slope: &slope)
            return method == .edges ? runs.reads() : EAN13ModelReader.reads(line[..<count], slope: slope)
        }
        for y in Swift.stride(from: 0, to: view.height, by: method.lineStep) {
            try budget.checkTime(for: method.passName)
            for x in 0..<view.width { line[x] = Float(view.pixels[y * view.rowStride + x]) }
            for read in reads(view.width) {
                tally.add(read.text, from: (x: read.start, y: y), to: (x: read.end, y: y), orientation: read.reversed ? ZBAR_ORIENT_DOWN : ZBAR_ORIENT_UP)
            }
        }
        for x in Swift.stride(from: 0, to: view.width, by: method.lineStep) {
            try budget.checkTime(for: method.passName)
            for y in 0..<view.height { line[y] = Float(view.pixels[y * view.rowStride + x]) }
            for read in reads(view.height) {
                tally.add(read.text, from: (x: x, y: read.start), to: (x: x, y: read.end), orientation: read.reversed ? ZBAR_ORIENT_LEFT : ZBAR_ORIENT_RIGHT)
            }
        }
        return tally.winner().map { [$0] } ?? []
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

        /// An edge is a local extreme of the slope of the line smoothed by [1 4 6 4 1] / 16, of at
        /// least a tenth of the line's steepest slope (and 3 grey levels), placed to a fraction of
        /// a pixel by a parabola through its neighbours. Two extremes of one sign in a row (a
        /// shoulder on one edge) keep the steeper.
        init(_ line: ArraySlice<Float>, smooth: inout [Float], slope: inout [Float]) {
            let n = line.count, base = line.startIndex
            guard n >= 8 else { return }
            let weights: [Float] = [1, 4, 6, 4, 1]
            for i in 0..<n {
                var sum: Float = 0
                for (k, w) in weights.enumerated() { sum += w * line[base + min(n - 1, max(0, i + k - 2))] }
                smooth[i] = sum / 16
            }
            var steepest: Float = 0
            slope[0] = 0
            slope[n - 1] = 0
            for i in 1..<(n - 1) {
                slope[i] = (smooth[i + 1] - smooth[i - 1]) / 2
                steepest = max(steepest, abs(slope[i]))
            }
            let threshold = max(3, steepest / 10)
            var edges: [(position: Float, slope: Float)] = []
            for i in 1..<(n - 1) {
                let s = slope[i]
                guard abs(s) >= threshold, abs(s) >= abs(slope[i - 1]), abs(s) > abs(slope[i + 1]) else { continue }
                let curvature = slope[i - 1] - 2 * s + slope[i + 1]
                let offset = curvature == 0 ? 0 : max(-0.5, min(0.5, 0.5 * (slope[i - 1] - slope[i + 1]) / curvature))
                let edge = (position: Float(i) + offset, slope: s)
                if let last = edges.last, (last.slope < 0) == (s < 0) {
                    if abs(s) > abs(last.slope) { edges[edges.count - 1] = edge }
                } else {
                    edges.append(edge)
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
                guard let (digit, isG) = character((0..<4).map { width(at + $0) }, left: c < 6) else { return nil }
                digits.append(digit)
                if isG { parity |= 1 << (5 - c) }
            }
            guard let leading = firstDigitByParity[parity] else { return nil }
            let text = ([leading] + digits).map { $0 + 0x30 }
            return CheckDigits.isValidEAN13(text) ? text : nil
        }

        /// The digit whose widths are nearest (sum of differences, in modules, of at most 1.6) to
        /// these four scaled to 7 modules; on the left, also whether it is the G code.
        static func character(_ four: [Float], left: Bool) -> (UInt8, Bool)? {
            let sum = four.reduce(0, +)
            guard sum > 0 else { return nil }
            let scaled = four.map { $0 * 7 / sum }
            var best: (distance: Float, digit: UInt8, isG: Bool) = (.infinity, 0, false)
            for (digit, pattern) in lCode.enumerated() {
                for isG in left ? [false, true] : [false] {
                    let widths = isG ? gCode[digit] : pattern
                    var distance: Float = 0
                    for (w, p) in zip(scaled, widths) { distance += abs(w - p) }
                    if distance < best.distance { best = (distance, UInt8(digit), isG) }
                }
            }
            return best.distance <= 1.6 ? (best.digit, best.isG) : nil
        }
    }

    /// Lines per text, and where the first and last of them read it.
    struct Tally {
        private var entries: [[UInt8]: (lines: Int, first: [(x: Int, y: Int)], last: [(x: Int, y: Int)], orientation: zbar_orientation_t)] = [:]

        mutating func add(_ text: [UInt8], from a: (x: Int, y: Int), to b: (x: Int, y: Int), orientation: zbar_orientation_t) {
            if var entry = entries[text] {
                entry.lines += 1
                entry.last = [b, a]
                entries[text] = entry
            } else {
                entries[text] = (1, [a, b], [b, a], orientation)
            }
        }

        func winner() -> ZbarSymbol? {
            let ranked = entries.sorted { $0.value.lines > $1.value.lines }
            guard let best = ranked.first, best.value.lines >= minimumLines else { return nil }
            if let second = ranked.dropFirst().first, best.value.lines < dominance * second.value.lines { return nil }
            return ZbarSymbol(type: ZBAR_EAN13, data: best.key, points: best.value.first + best.value.last,
                              orientation: best.value.orientation, quality: best.value.lines, addOn: nil)
        }
    }
}
