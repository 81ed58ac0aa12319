import Glibc  // expf

/// edge's EAN-13 reader for bars too blurred to have edges: the pass `ean-model`, the last of the
/// still-image plan.
///
/// Why: out of focus, a 1-module space between two bars fills in to a grey dip and a 1-module
/// bar fades to a grey bump, so zbar's decoder and `EAN13LineReader` (both measure widths between
/// edges) lose runs and read nothing, though the label is plain to the eye (ean13-1/34.png,
/// 36.png, 37.png and ean13-2/02.png of the development photos). This reader does not measure
/// narrow elements. It fits the line to what each character would look like blurred:
/// - a code's ends are a falling and a rising edge with 5 modules of quiet line outside them and
///   15-45 bar fronts between (a code has 30; blur merges some, shoulders split some), so the
///   module width is their distance / 95, at least 1 pixel;
/// - each character is sampled over its 7 modules (4 samples a module) and correlated with the
///   20 left or 10 right characters rendered blurred by a Gaussian, with the module each
///   neighbour contributes (the code's structure fixes it: a left character follows a bar and
///   precedes a space, a right one the opposite); the best correlation picks the character, and
///   a correlation ignores the contrast, which blur lowers more for narrow elements;
/// - the centre guard's position (±1 module) and both ends (±0.5 module) are fitted, each half on
///   its own, so a code seen at an angle or on a slight curve, whose modules are wider at one
///   end, still lines up; then the blur (0.3-0.9 module) on that grid, and the grid again.
///
/// A line's read must pass the first digit's parity pattern, the check digit, and a mean
/// correlation of at least `minimumFit`. On the development photos the lines that read the
/// right text fit at 0.93-0.98 and the valid-looking wrong ones at most 0.88 (a Python
/// prototype over every sixth row); the agreement rule of `EAN13LineReader.Tally` (3 lines, 3
/// times any other text) then stands between one lucky line and a report. Work is bounded:
/// each falling edge is paired with the rising edges up to its 45th bar front, and the budget's
/// deadline is checked on every line.
enum EAN13ModelReader {
    static let samplesPerModule = 4
    /// Gaussian blurs tried, as sigma in modules.
    static let blurs: [Float] = [0.3, 0.45, 0.6, 0.75, 0.9]
    static let minimumFit: Float = 0.92
    /// The fit, under the middle blur with only the centre fitted, below which a candidate is
    /// dropped before the rest of the search. On the development photos every line that read
    /// fitted at least 0.836 there, and 93% of the candidates that did not, less than 0.8.
    static let promisingFit: Float = 0.8

    /// Each blur's characters as zero-mean, unit-length sample vectors of 7 `SIMD4`s each, one
    /// after another: `left` holds L 0-9 then G 0-9, `right` R 0-9.
    struct Templates {
        var left: [SIMD4<Float>] = []
        var right: [SIMD4<Float>] = []
    }

    /// `SIMD4`s per character: 7 modules of `samplesPerModule` samples.
    static let chunks = 7 * samplesPerModule / 4

    static let templates: [Templates] = blurs.map { sigma in
        var set = Templates()
        func modules(_ widths: [Float], startingDark: Bool) -> [Float] {
            var out: [Float] = []
            var dark = startingDark
            for width in widths {
                out += Array(repeating: dark ? 1 : 0, count: Int(width))
                dark.toggle()
            }
            return out
        }
        for pattern in EAN13LineReader.lCode + EAN13LineReader.gCode {
            set.left += packed(rendered(modules(pattern, startingDark: false), before: 1, after: 0, sigma: sigma))
        }
        for pattern in EAN13LineReader.lCode {
            set.right += packed(rendered(modules(pattern, startingDark: true), before: 0, after: 1, sigma: sigma))
        }
        return set
    }

    static func packed(_ samples: [Float]) -> [SIMD4<Float>] {
        Swift.stride(from: 0, to: samples.count, by: 4).map { SIMD4(samples[$0..<($0 + 4)]) }
    }

    /// The 7 modules between their neighbours, blurred, sampled like a line and normalised.
    static func rendered(_ modules: [Float], before: Float, after: Float, sigma: Float) -> [Float] {
        let k = samplesPerModule
        let sharp = ([before] + modules + [after]).flatMap { Array(repeating: $0, count: k) }
        let s = sigma * Float(k), radius = Int((3 * s).rounded(.up))
        let weights = (-radius...radius).map { expf(-Float($0 * $0) / (2 * s * s)) }
        let total = weights.reduce(0, +)
        var out = [Float](repeating: 0, count: 7 * k)
        for i in 0..<(7 * k) {
            var sum: Float = 0
            for (t, w) in weights.enumerated() { sum += w * sharp[min(sharp.count - 1, max(0, k + i + t - radius))] }
            out[i] = sum / total
        }
        normalise(&out)
        return out
    }

    /// Zero mean, unit length; false when the samples are flat.
    @discardableResult
    static func normalise(_ v: inout [Float]) -> Bool {
        let mean = v.reduce(0, +) / Float(v.count)
        var norm: Float = 0
        for i in v.indices { v[i] -= mean; norm += v[i] * v[i] }
        guard norm > 0 else { return false }
        let scale = 1 / norm.squareRoot()
        for i in v.indices { v[i] *= scale }
        return true
    }

    /// Every EAN-13 along `line` that fits the model, in both directions. `slope` is the line's
    /// smoothed slope (`EAN13LineReader.Runs.slopes`). Every local extreme of the slope
    /// of at least a tenth of the steepest (and 3 grey levels) may be an end; unlike `Runs`, two of
    /// one sign in a row are both kept: a blurred guard of 1-pixel modules has two shallow falls
    /// where `Runs` keeps only the steeper, inner one.
    static func reads(_ line: ArraySlice<Float>, slope: [Float]) -> [EAN13LineReader.Read] {
        let n = line.count
        guard n >= 8 else { return [] }
        var steepest: Float = 0
        for i in 0..<n { steepest = max(steepest, abs(slope[i])) }
        let threshold = max(3, steepest / 10)
        var edges: [(position: Float, falling: Bool)] = []
        for i in 1..<(n - 1) {
            let s = slope[i]
            guard abs(s) >= threshold, abs(s) >= abs(slope[i - 1]), abs(s) > abs(slope[i + 1]) else { continue }
            edges.append((Float(i), s < 0))
        }
        var fitter = Fitter(line: Array(line))
        for (first, start) in edges.enumerated() where start.falling {
            let a = start.position
            var bars = 0
            for last in first..<edges.count {
                if edges[last].falling {
                    bars += 1
                    if bars > 45 { break }
                    continue
                }
                let b = edges[last].position
                let module = (b - a) / 95
                // Quiet line (no edge) for 5 modules outside both ends; half the bars' fronts found.
                guard module >= 1, bars >= 15, a - 5 * module >= 0, b + 5 * module < Float(n - 1),
                      first == 0 || edges[first - 1].position < a - 5 * module,
                      last == edges.count - 1 || edges[last + 1].position > b + 5 * module else { continue }
                for reversed in [false, true] {
                    guard let text = reversed ? fitter.read(from: b, to: a) : fitter.read(from: a, to: b) else { continue }
                    // One read a line: a line crosses one code, and the model fits it at ends a
                    // pixel or two apart just as well.
                    return [EAN13LineReader.Read(text: text, start: Int(a.rounded()), end: Int(b.rounded()), reversed: reversed)]
                }
            }
        }
        return []
    }

    /// Fits one line; keeps its sample buffer between candidates.
    struct Fitter {
        let line: [Float]
        var window = [SIMD4<Float>](repeating: SIMD4(), count: chunks)

        init(line: [Float]) { self.line = line }

        /// The text when the code from `a` (start guard's outer edge) to `b` (end guard's) fits.
        mutating func read(from a: Float, to b: Float) -> [UInt8]? {
            let module = (b - a) / 95
            let centre = (a + b) / 2
            // Coordinate descent, since the blur and the grid each blur the other's fit: the grid
            // under a middle blur, then the blur on that grid, then the grid again under it.
            var grid = fitGrid(a, b, centre: centre, module: module, templates[templates.count / 2])
            var blur = templates.count / 2
            if let fitted = grid {
                var bestBlur: Float = -.infinity
                for index in templates.indices {
                    guard let left = half(from: fitted.a, to: fitted.centre, left: true, templates[index]),
                          let right = half(from: fitted.centre, to: fitted.b, left: false, templates[index]) else { continue }
                    if left.fit + right.fit > bestBlur { bestBlur = left.fit + right.fit; blur = index }
                }
            }
            if blur != templates.count / 2 { grid = fitGrid(a, b, centre: centre, module: module, templates[blur]) }
            let best = grid.map { (fit: $0.fit, digits: $0.digits, parity: $0.parity) }
            guard let fitted = best, fitted.fit / 12 >= minimumFit,
                  let leading = EAN13LineReader.firstDigitByParity[fitted.parity] else { return nil }
            let text = ([leading] + fitted.digits).map { $0 + 0x30 }
            return CheckDigits.isValidEAN13(text) ? text : nil
        }

        /// The best fit of the centre guard's middle (within 1 module of the nominal middle, in
        /// quarters) and of each half's outer end (within half a module), each half on its own:
        /// the middle with the ends nominal, then the ends at that middle, then the middle again.
        /// A descent, not every combination: a third of the fits, and on the development photos
        /// the same reads.
        mutating func fitGrid(_ a: Float, _ b: Float, centre: Float, module: Float, _ set: Templates)
            -> (fit: Float, digits: [UInt8], parity: Int, a: Float, centre: Float, b: Float)? {
            typealias Half = (fit: Float, digits: [UInt8], parity: Int)
            func bestMiddle(_ a: Float, _ b: Float) -> (middle: Float, left: Half, right: Half)? {
                var best: (middle: Float, left: Half, right: Half)?
                for c in -4...4 {
                    let middle = centre + Float(c) / 4 * module
                    guard let l = half(from: a, to: middle, left: true, set), let r = half(from: middle, to: b, left: false, set) else { continue }
                    if l.fit + r.fit > (best.map { $0.left.fit + $0.right.fit } ?? -.infinity) { best = (middle, l, r) }
                }
                return best
            }
            // Most candidate ends on a photo are not a code's: they stop here.
            guard let first = bestMiddle(a, b), (first.left.fit + first.right.fit) / 12 >= promisingFit else { return nil }
            var left = (end: a, half: first.left), right = (end: b, half: first.right)
            for e in [-2, -1, 1, 2] {
                let shift = Float(e) / 4 * module
                if let l = half(from: a + shift, to: first.middle, left: true, set), l.fit > left.half.fit { left = (a + shift, l) }
                if let r = half(from: first.middle, to: b + shift, left: false, set), r.fit > right.half.fit { right = (b + shift, r) }
            }
            guard let second = bestMiddle(left.end, right.end) else { return nil }
            return (second.left.fit + second.right.fit, second.left.digits + second.right.digits, second.left.parity,
                    left.end, second.middle, right.end)
        }

        /// The six characters of one half between its outer guard edge `from` and the centre
        /// guard's middle `to` (or the reverse for the right half): the summed best correlations,
        /// the digits, and for the left half which used the G code (bit 5 = the first).
        mutating func half(from: Float, to: Float, left: Bool, _ set: Templates) -> (fit: Float, digits: [UInt8], parity: Int)? {
            let k = Float(samplesPerModule), chunks = EAN13ModelReader.chunks
            let module = (to - from) / 47.5
            var fit: Float = 0, digits: [UInt8] = [], parity = 0
            digits.reserveCapacity(6)
            for c in 0..<6 {
                // Left characters start 3 modules after the start guard's edge; right ones 2.5
                // after the centre guard's middle.
                let firstModule = left ? Float(3 + 7 * c) : 2.5 + Float(7 * c)
                var sum = SIMD4<Float>()
                for j in 0..<chunks {
                    var v = SIMD4<Float>()
                    for lane in 0..<4 { v[lane] = -sample(at: from + (firstModule + (Float(4 * j + lane) + 0.5) / k) * module) }
                    window[j] = v
                    sum += v
                }
                // Zero mean, unit length, as the templates.
                let mean = sum.sum() / Float(4 * chunks)
                var norm: Float = 0
                for j in 0..<chunks { window[j] -= mean; norm += (window[j] * window[j]).sum() }
                guard norm > 0 else { return nil }
                var best: (score: Float, index: Int) = (-.infinity, 0)
                let candidates = left ? set.left : set.right
                window.withUnsafeBufferPointer { w in
                    candidates.withUnsafeBufferPointer { t in
                        for index in 0..<(t.count / chunks) {
                            var dot = SIMD4<Float>()
                            for j in 0..<chunks { dot += w[j] * t[index * chunks + j] }
                            let score = dot.sum()
                            if score > best.score { best = (score, index) }
                        }
                    }
                }
                fit += best.score / norm.squareRoot()
                digits.append(UInt8(best.index % 10))
                if best.index >= 10 { parity |= 1 << (5 - c) }
            }
            return (fit, digits, parity)
        }

        /// The line at `x`, interpolated, clamped to its ends.
        func sample(at x: Float) -> Float {
            let last = line.count - 1
            guard x > 0 else { return line[0] }
            guard x < Float(last) else { return line[last] }
            let i = Int(x), f = x - Float(i)
            return line[i] * (1 - f) + line[i + 1] * f
        }
    }
}
