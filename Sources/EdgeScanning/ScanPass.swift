import EdgeImaging

/// One attempt at an image: a chain of image steps followed by a scan (SCN-4), zbar's or, for
/// `ean-lines` and `ean-model`, edge's own EAN-13 readers. Its name, e.g. `plain`, `invert`,
/// `downscale-2+rotate-30`, is reported with every code it finds.
public struct ScanPass: Sendable, Hashable, CustomStringConvertible {
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case downscale(Int)
        /// Shrink to two thirds (`ImageView.downscaledThreeHalves`), printed `downscale-1.5`.
        case downscaleThreeHalves
        case upscale(Int)
        case invert
        case stretch
        case blur
        case binarize
        case rotate(Int)
        /// White margin, in percent of the longer side (at least 8 px).
        case pad(Int)
        /// Whiten the dark frame a tight crop left at the ends of the lines across the bars
        /// (`ImageView.clearingDarkEnds`), so a 1D code regains its quiet zones.
        case clearBorder
        case erode
        /// 3x3 maximum; after `erode`, an opening that clears texture inside dark modules.
        case dilate
        case sharpen
        /// QR only: warp the code found by its finder patterns to an upright square.
        case rectify
        /// Scan every second row and column (zbar density 2) instead of every one: half the
        /// cost, and a clean code whose narrowest element is 2+ pixels is still read.
        case sparse
        /// Only the regions `CodeRegionFinder` marks as code-like, each scanned on its own.
        case regions
        /// Only the scan lines that cross a 1D code's bars (`ScanLines.acrossBars`): rows when
        /// the image's strong edges are upright, columns when they lie down, else both. Half the
        /// cost when it narrows; a pass of this step alone is skipped when it cannot.
        case acrossBars
        /// Not zbar: edge's own EAN-13 reader along every second row and column
        /// (`EAN13LineReader`), for bars zbar's decoder gives up on.
        case eanLines
        /// Not zbar: edge's EAN-13 reader for blurred bars, fitting every fourth row and column to
        /// blurred characters (`EAN13ModelReader`).
        case eanModel

        public var description: String {
            switch self {
            case .downscale(let f): return "downscale-\(f)"
            case .downscaleThreeHalves: return "downscale-1.5"
            case .upscale(let f): return "upscale-\(f)"
            case .invert: return "invert"
            case .stretch: return "stretch"
            case .blur: return "blur"
            case .binarize: return "binarize"
            case .rotate(let d): return "rotate-\(d)"
            case .pad(let p): return "pad-\(p)"
            case .clearBorder: return "clear-border"
            case .erode: return "erode"
            case .dilate: return "dilate"
            case .sharpen: return "sharpen"
            case .rectify: return "rectify"
            case .sparse: return "sparse"
            case .regions: return "regions"
            case .acrossBars: return "across-bars"
            case .eanLines: return "ean-lines"
            case .eanModel: return "ean-model"
            }
        }
    }

    public let steps: [Step]

    public init(_ steps: [Step]) { self.steps = steps }

    public static let plain = ScanPass([])

    public var description: String { steps.isEmpty ? "plain" : steps.map(\.description).joined(separator: "+") }

    /// Whether the pass changes the image (it then needs an owned copy); `sparse`, `acrossBars`
    /// and the EAN-13 readers' steps only change how it is scanned.
    var transformsImage: Bool { steps.contains { $0 != .sparse && $0 != .acrossBars && $0 != .eanLines && $0 != .eanModel } }

    /// The scan lines for `view`, the image this pass made (or the caller's, for a pass that
    /// changes no pixels).
    func lines(for view: ImageView) -> ScanLines { steps.contains(.acrossBars) ? .acrossBars(in: view) : .both }

    /// The zbar scan density for this pass: when sparse, 2, or 3 across bars (a 1D code's bars are
    /// tall: an EAN-13 is about 70 modules high, so every third line still crosses it dozens of
    /// times; QR finder patterns are 3 modules across and need every second); else the reader's.
    /// Measured on the development photos: density 3 across bars read the same 1D photos in two
    /// thirds of the time, with no misread; density 4 turned one blurred EAN-13 into another
    /// valid one (ean13-1/37.png, on 11 lines).
    func scanDensity(_ readerDensity: Int) -> Int {
        guard steps.contains(.sparse) else { return readerDensity }
        return max(steps.contains(.acrossBars) ? 3 : 2, readerDensity)
    }

    /// This pass's steps applied to each region `CodeRegionFinder` marks in `view`, cropped
    /// straight from it (the camera preset's first pass needs no copy of the whole frame); none
    /// when it marks none, or so many that they cover most of the image.
    func applyInRegions(of view: ImageView, budget: WorkBudget) throws(TransformError) -> [PassImage] {
        guard let regions = try CodeRegionFinder().regions(in: view, budget: budget), !regions.isEmpty else { return [] }
        // A later rotation turns the bars: the region's scan direction no longer holds.
        let turned = steps.contains { if case .rotate = $0 { return true } else { return false } }
        var out: [PassImage] = []
        // Each region's rectifier numbers its triples from 0: renumbered so no two regions share one.
        var triplesBefore = 0
        for r in regions {
            // A crop is never larger than the view it comes from; the steps check their own sizes.
            let crop = view.cropped(x: r.x, y: r.y, width: r.width, height: r.height)
            let made = try apply(to: crop, budget: budget)
            for applied in made {
                out.append(PassImage(image: applied.image, map: PointMap.identity.after(.translate(r.x, r.y)).appending(applied.map),
                                     lines: turned ? .both : r.lines, triple: applied.triple.map { triplesBefore + $0 }))
            }
            triplesBefore += (made.compactMap(\.triple).max() ?? -1) + 1
        }
        return out
    }

    /// Applies the steps; returns no image when a step has nothing to add (e.g. stretching a
    /// full-range image), so the pass is skipped rather than repeating an earlier one, and
    /// several when a step offers candidates (rectification, regions), each with the scan lines
    /// zbar needs on it.
    ///
    /// Every step computes the size of what it makes before allocating and throws `.tooLarge`
    /// past `budget.maxPixels` (the loaders' pixel limit), and `.outOfTime` once the budget's
    /// deadline passes while it runs (SCN-10).
    func apply(to image: GrayImage, budget: WorkBudget = .standard) throws(TransformError) -> [PassImage] {
        var current = image
        var map = PointMap.identity
        for (index, step) in steps.enumerated() {
            try budget.checkTime(for: description)
            let next: GrayImage
            switch step {
            case .downscale(let f):
                guard current.width / f >= 16, current.height / f >= 16 else { return [] }
                next = try current.withView { (v) throws(TransformError) in try v.downscaled(by: f, budget: budget) }
                map = map.after(.scale(Double(f)))
            case .downscaleThreeHalves:
                guard current.width * 2 / 3 >= 16, current.height * 2 / 3 >= 16 else { return [] }
                next = try current.withView { (v) throws(TransformError) in try v.downscaledThreeHalves(budget: budget) }
                map = map.after(.scale(1.5))
            case .upscale(let f):
                next = try current.withView { (v) throws(TransformError) in try v.upscaled(by: f, budget: budget) }
                map = map.after(.scale(1 / Double(f)))
            case .invert:
                next = try current.withView { (v) throws(TransformError) in try v.inverted(budget: budget) }
            case .stretch:
                guard let s = try current.withView({ (v) throws(TransformError) in try v.contrastStretched(budget: budget) }) else { return [] }
                next = s
            case .blur:
                next = try current.withView { (v) throws(TransformError) in try v.blurred(budget: budget) }
            case .binarize:
                next = try current.withView { (v) throws(TransformError) in try v.binarized(budget: budget) }
            case .pad(let percent):
                // The margin follows the longer side (a quiet zone in proportion to the code);
                // `padded` refuses when that makes the image too large, which for a long thin
                // image is long before the image itself is (its area grows with the square of
                // the length). `current` is within the budget, so this product cannot overflow.
                let margin = max(8, max(current.width, current.height) * percent / 100)
                next = try current.withView { (v) throws(TransformError) in try v.padded(by: margin, budget: budget) }
                map = map.after(.translate(-margin, -margin))
            case .clearBorder:
                let across = current.withView { ScanLines.acrossBars(in: $0) }
                next = try current.withView { (v) throws(TransformError) in
                    try v.clearingDarkEnds(rows: across != .columns, columns: across != .rows, budget: budget)
                }
            case .erode:
                next = try current.withView { (v) throws(TransformError) in try v.eroded(budget: budget) }
            case .dilate:
                next = try current.withView { (v) throws(TransformError) in try v.dilated(budget: budget) }
            case .sharpen:
                next = try current.withView { (v) throws(TransformError) in try v.sharpened(budget: budget) }
            case .regions:
                let rest = ScanPass(Array(steps[(index + 1)...]))
                return try current.withView { (v) throws(TransformError) in try rest.applyInRegions(of: v, budget: budget) }
                    .map { PassImage(image: $0.image, map: map.appending($0.map), lines: $0.lines, triple: $0.triple) }
            case .rectify:
                // Several candidate warps; each continues through the remaining steps.
                let rest = ScanPass(Array(steps[(index + 1)...]))
                var out: [PassImage] = []
                for candidate in try QRRectifier.candidates(from: current, budget: budget) {
                    for applied in try rest.apply(to: candidate.image, budget: budget) {
                        out.append(PassImage(image: applied.image, map: map.after(.homography(candidate.toSource)).appending(applied.map),
                                             lines: applied.lines, triple: candidate.triple))
                    }
                }
                return out
            case .rotate(let d):
                let (rotated, geometry) = try current.withView { (v) throws(TransformError) in try v.rotated(degrees: Double(d), budget: budget) }
                next = rotated
                map = map.after(.rotation(geometry))
            case .sparse, .acrossBars, .eanLines, .eanModel:
                // Ways of scanning, not of changing the image (see `scanDensity`, `lines(for:)`).
                continue
            }
            current = next
        }
        return [PassImage(image: current, map: map, lines: current.withView { lines(for: $0) })]
    }
}

/// One image a pass made: how its points map back to the image the pass was given, the lines to
/// scan on it, and for the rectifier's warps the finder triple they came from, numbered within
/// the pass (`BarcodeReader` scans no more of a triple's warps once one of them reads).
struct PassImage {
    let image: GrayImage
    let map: PointMap
    let lines: ScanLines
    var triple: Int? = nil
}

extension ScanPass {
    /// Parses a pass name as printed (`plain`, `invert+upscale-2`, `rotate-30`), so operators and
    /// benchmarks can give an explicit pass list.
    public init(parsing name: String) throws(ScanError) {
        if name == "plain" { self = .plain; return }
        var steps: [Step] = []
        for part in name.split(separator: "+", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            let word = pieces.first.map(String.init) ?? ""
            let number = pieces.count > 1 ? Int(pieces[1]) : nil
            let step: Step?
            switch (word, number) {
            case ("across", nil) where part == "across-bars": step = .acrossBars
            case ("clear", nil) where part == "clear-border": step = .clearBorder
            case ("ean", nil) where part == "ean-lines": step = .eanLines
            case ("ean", nil) where part == "ean-model": step = .eanModel
            case ("downscale", nil) where part == "downscale-1.5": step = .downscaleThreeHalves
            case ("downscale", let n?) where (2...16).contains(n): step = .downscale(n)
            case ("upscale", let n?) where (2...4).contains(n): step = .upscale(n)
            case ("rotate", let n?) where (-179...179).contains(n): step = .rotate(n)
            case ("pad", let n?) where (0...50).contains(n): step = .pad(n)
            case ("invert", nil): step = .invert
            case ("stretch", nil): step = .stretch
            case ("blur", nil): step = .blur
            case ("binarize", nil): step = .binarize
            case ("erode", nil): step = .erode
            case ("dilate", nil): step = .dilate
            case ("sharpen", nil): step = .sharpen
            case ("rectify", nil): step = .rectify
            case ("sparse", nil): step = .sparse
            case ("regions", nil): step = .regions
            default: step = nil
            }
            guard let step else {
                throw ScanError(.unknownPass, "unknown scan pass '\(name)'", context: ["pass": name])
            }
            steps.append(step)
        }
        guard !steps.isEmpty else {
            throw ScanError(.unknownPass, "empty scan pass name", context: ["pass": name])
        }
        self.init(steps)
    }
}
