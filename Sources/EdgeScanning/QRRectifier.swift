import Glibc  // hypot
import EdgeImaging

/// Rectification for QR codes zbar cannot locate on its own (SCN-4): photographed at a steep
/// angle, sheared, or with finder patterns its line clustering misses. Finds the three finder
/// patterns, takes them as the corners of an upright square, and warps the image so the code
/// stands square with a quiet zone; zbar then reads the warped image.
enum QRRectifier {
    /// Output pixels per module of a candidate.
    static let scale = 4.0
    /// Modules of white around the code in a candidate.
    static let quiet = 4.0

    struct Candidate {
        let image: GrayImage
        /// Maps rectified-image points back to the source image.
        let toSource: Homography
        /// Which finder triple it was warped from, best first: the candidates of one triple
        /// differ only in where they put the fourth corner.
        let triple: Int
    }

    /// Up to `limit` rectified images, best-looking finder triple first.
    /// Each warp is at most (177 + 8) x 4 = 740 px square whatever the input, so its size needs
    /// no check; the thresholdings and the finder search are the input's size and run within
    /// `budget` (pixels and deadline).
    static func candidates(from image: GrayImage, limit: Int = 3, budget: WorkBudget = .standard) throws(TransformError) -> [Candidate] {
        // Finder patterns from both thresholdings: the solid one finds finders larger than the
        // threshold window, the outline one keeps finders whose centre blurred into the ring.
        let solid = try image.withView { (v) throws(TransformError) in try v.binarized(keepDarkAreas: true, budget: budget) }
        var finders = try QRFinderLocator.locate(in: solid, budget: budget)
        let outline = try image.withView { (v) throws(TransformError) in try v.binarized(budget: budget) }
        for f in try QRFinderLocator.locate(in: outline, budget: budget)
        where !finders.contains(where: { abs($0.x - f.x) < $0.module * 2 && abs($0.y - f.y) < $0.module * 2 }) {
            finders.append(f)
        }
        guard finders.count >= 3 else { return [] }
        var triples: [(score: Double, corner: QRFinderLocator.Finder, right: QRFinderLocator.Finder, down: QRFinderLocator.Finder)] = []
        for i in 0..<finders.count {
            for j in (i + 1)..<finders.count {
                for k in (j + 1)..<finders.count {
                    triples += orient(finders[i], finders[j], finders[k])
                }
            }
        }
        // Perspective moves the fourth corner away from where a parallelogram would put it; try a
        // small grid of positions around that guess (in module units along the code's axes).
        let shifts: [(Double, Double)] = [(0, 0)] + [-4.0, -2, 2, 4].flatMap { dx in [(dx, 0.0)] } + [-4.0, -2, 2, 4].map { (0.0, $0) }
            + [(-2, -2), (2, 2), (-2, 2), (2, -2), (-4, -4), (4, 4), (-4, 4), (4, -4)]
        var out: [Candidate] = []
        for (index, t) in triples.sorted(by: { $0.score < $1.score }).prefix(limit).enumerated() {
            for shift in shifts {
                try budget.checkTime(for: "rectify")
                if let c = warp(image, corner: t.corner, right: t.right, down: t.down, shift: shift, triple: index) { out.append(c) }
            }
        }
        return out
    }

    /// The ways to read three finders as a code's corner (top-left) and the finders to its right
    /// and below; empty when they form no plausible L.
    ///
    /// The corner is opposite the longest side, the diagonal. Under strong perspective a side
    /// can come out as long as the diagonal (qrcode-2/fix-finderpattern-order.png: 153 px
    /// against 152), so every corner whose opposite side is within 15% of the longest is
    /// offered, each with its own score.
    static func orient(_ a: QRFinderLocator.Finder, _ b: QRFinderLocator.Finder, _ c: QRFinderLocator.Finder)
        -> [(score: Double, corner: QRFinderLocator.Finder, right: QRFinderLocator.Finder, down: QRFinderLocator.Finder)] {
        let modules = [a.module, b.module, c.module]
        guard let mMin = modules.min(), let mMax = modules.max(), mMax < mMin * 2 else { return [] }
        let options = [(a, b, c, distance(b, c)), (b, a, c, distance(a, c)), (c, a, b, distance(a, b))]
        guard let longest = options.map(\.3).max() else { return [] }
        return options.filter { $0.3 >= longest * 0.85 }.compactMap { option in
            orient(corner: option.0, option.1, option.2, modules: (mMin, mMax), weakest: Double(min(a.hits, b.hits, c.hits)))
        }
    }

    /// One reading of `orient`: `corner` with `p` and `q`, or nil when that is no plausible L.
    private static func orient(corner: QRFinderLocator.Finder, _ p: QRFinderLocator.Finder, _ q: QRFinderLocator.Finder,
                               modules: (min: Double, max: Double), weakest: Double)
        -> (score: Double, corner: QRFinderLocator.Finder, right: QRFinderLocator.Finder, down: QRFinderLocator.Finder)? {
        let l1 = distance(corner, p), l2 = distance(corner, q)
        let module = (corner.module + p.module + q.module) / 3
        // At least a version-1 code apart (14 modules between centres), sides within 2:1.
        guard min(l1, l2) > module * 10, max(l1, l2) < min(l1, l2) * 2 else { return nil }
        let cosAngle = ((p.x - corner.x) * (q.x - corner.x) + (p.y - corner.y) * (q.y - corner.y)) / (l1 * l2)
        guard abs(cosAngle) < 0.85 else { return nil }  // between about 30 and 150 degrees (strong shear)
        // Image y grows downwards: right x down is positive for an upright (unmirrored) code.
        let cross = (p.x - corner.x) * (q.y - corner.y) - (p.y - corner.y) * (q.x - corner.x)
        let (right, down) = cross > 0 ? (p, q) : (q, p)
        // Lower is better: square, equal sides, similar module sizes, and well-confirmed finders
        // (a pattern seen on one or two rows is often a false match inside the code).
        let score = abs(cosAngle) + abs(l1 - l2) / max(l1, l2) + (modules.max - modules.min) / modules.max + 1 / weakest
        return (score, corner, right, down)
    }

    private static func distance(_ p: QRFinderLocator.Finder, _ q: QRFinderLocator.Finder) -> Double { hypot(p.x - q.x, p.y - q.y) }

    private static func warp(_ image: GrayImage, corner: QRFinderLocator.Finder, right: QRFinderLocator.Finder,
                             down: QRFinderLocator.Finder, shift: (Double, Double), triple: Int) -> Candidate? {
        let module = (corner.module + right.module + down.module) / 3
        let side = ((hypot(right.x - corner.x, right.y - corner.y) + hypot(down.x - corner.x, down.y - corner.y)) / 2)
        // Modules between the finder centres, rounded to a valid QR size (17 + 4v) minus 7.
        let version = max(1, min(40, Int(((side / module + 7 - 17) / 4).rounded())))
        let dimension = Double(17 + 4 * version)
        let centreSpan = dimension - 7
        // The fourth finder-centre position, as if the code were a parallelogram; zbar's own
        // decoder corrects what perspective leaves over.
        let ux = (right.x - corner.x) / centreSpan, uy = (right.y - corner.y) / centreSpan  // one module right
        let vx = (down.x - corner.x) / centreSpan, vy = (down.y - corner.y) / centreSpan    // one module down
        let fourth = (x: right.x + down.x - corner.x + shift.0 * ux + shift.1 * vx,
                      y: right.y + down.y - corner.y + shift.0 * uy + shift.1 * vy)
        let scale = Self.scale, quiet = Self.quiet
        func out(_ mx: Double, _ my: Double) -> (x: Double, y: Double) { ((mx + quiet) * scale, (my + quiet) * scale) }
        let dst = [out(3.5, 3.5), out(3.5 + centreSpan, 3.5), out(3.5, 3.5 + centreSpan), out(3.5 + centreSpan, 3.5 + centreSpan)]
        let src = [(x: corner.x, y: corner.y), (x: right.x, y: right.y), (x: down.x, y: down.y), fourth]
        guard let toSource = Homography(from: dst, to: src) else { return nil }
        return render(image, toSource: toSource, size: Int((dimension + 2 * quiet) * scale), triple: triple)
    }

    /// The `size` x `size` image whose pixel (x, y) is `image` at `toSource(x, y)`, bilinear;
    /// white outside the image.
    private static func render(_ image: GrayImage, toSource: Homography, size: Int, triple: Int) -> Candidate {
        var rectified = GrayImage(width: size, height: size)
        let w = image.width, h = image.height
        image.pixels.withUnsafeBufferPointer { px in
            rectified.pixels.withUnsafeMutableBufferPointer { dstPx in
                for y in 0..<size {
                    for x in 0..<size {
                        let s = toSource.apply(Double(x) + 0.5, Double(y) + 0.5)
                        let sx = s.x - 0.5, sy = s.y - 0.5
                        guard sx >= 0, sy >= 0, sx < Double(w - 1), sy < Double(h - 1) else { continue }
                        let x0 = Int(sx), y0 = Int(sy)
                        let fx = sx - Double(x0), fy = sy - Double(y0)
                        let i = y0 * w + x0
                        let top = Double(px[i]) + (Double(px[i + 1]) - Double(px[i])) * fx
                        let bottom = Double(px[i + w]) + (Double(px[i + w + 1]) - Double(px[i + w])) * fx
                        dstPx[y * size + x] = UInt8(top + (bottom - top) * fy + 0.5)
                    }
                }
            }
        }
        return Candidate(image: rectified, toSource: toSource, triple: triple)
    }

    /// The modules across a candidate's code as `warp` estimated them from the finder spacing.
    static func estimatedDimension(of candidate: GrayImage) -> Int {
        Int((Double(candidate.width) / scale).rounded()) - 2 * Int(quiet)
    }

    /// The module grid of a candidate (`warp`'s output) read as a code of `dimension` modules:
    /// the mean of the 2x2 pixels at each module's centre, split into dark and light by the
    /// two-means threshold of those samples. The finder centres sit 3.5 modules in from the
    /// corners whatever the size, so another `dimension` than the one the warp estimated
    /// stretches the grid between them (`QRModuleDecoder` then checks the version blocks).
    static func modules(of candidate: GrayImage, dimension: Int) -> QRModuleDecoder? {
        let warped = estimatedDimension(of: candidate)
        guard dimension >= 21, dimension <= 177, warped >= 21, candidate.width == candidate.height else { return nil }
        let stretch = Double(warped - 7) / Double(dimension - 7)
        var samples = [Int](repeating: 0, count: dimension * dimension)
        let w = candidate.width, rowStride = candidate.rowStride
        for my in 0..<dimension {
            let py = Int(((3.5 + (Double(my) + 0.5 - 3.5) * stretch + quiet) * scale).rounded())
            for mx in 0..<dimension {
                let px = Int(((3.5 + (Double(mx) + 0.5 - 3.5) * stretch + quiet) * scale).rounded())
                guard px >= 1, py >= 1, px < w, py < candidate.height else { return nil }
                let i = py * rowStride + px
                samples[my * dimension + mx] = Int(candidate.pixels[i]) + Int(candidate.pixels[i - 1])
                    + Int(candidate.pixels[i - rowStride]) + Int(candidate.pixels[i - rowStride - 1])
            }
        }
        var threshold = samples.reduce(0, +) / samples.count
        for _ in 0..<8 {
            var dark = 0, darkCount = 0, light = 0, lightCount = 0
            for s in samples {
                if s < threshold { dark += s; darkCount += 1 } else { light += s; lightCount += 1 }
            }
            guard darkCount > 0, lightCount > 0 else { return nil }
            let next = (dark / darkCount + light / lightCount) / 2
            if next == threshold { break }
            threshold = next
        }
        return QRModuleDecoder(dimension: dimension, modules: samples.map { $0 < threshold })
    }
}
