import EdgeImaging

/// One attempt at an image: a chain of image steps followed by a zbar scan (SCN-4). Its name,
/// e.g. `plain`, `invert`, `downscale-2+rotate-30`, is reported with every code it finds.
public struct ScanPass: Sendable, Hashable, CustomStringConvertible {
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case downscale(Int)
        case upscale(Int)
        case invert
        case stretch
        case blur
        case binarize
        case rotate(Int)
        /// White margin, in percent of the longer side (at least 8 px).
        case pad(Int)
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

        public var description: String {
            switch self {
            case .downscale(let f): return "downscale-\(f)"
            case .upscale(let f): return "upscale-\(f)"
            case .invert: return "invert"
            case .stretch: return "stretch"
            case .blur: return "blur"
            case .binarize: return "binarize"
            case .rotate(let d): return "rotate-\(d)"
            case .pad(let p): return "pad-\(p)"
            case .erode: return "erode"
            case .dilate: return "dilate"
            case .sharpen: return "sharpen"
            case .rectify: return "rectify"
            case .sparse: return "sparse"
            case .regions: return "regions"
            }
        }
    }

    public let steps: [Step]

    public init(_ steps: [Step]) { self.steps = steps }

    public static let plain = ScanPass([])

    public var description: String { steps.isEmpty ? "plain" : steps.map(\.description).joined(separator: "+") }

    /// Whether the pass changes the image (it then needs an owned copy); `sparse` only changes
    /// how it is scanned.
    var transformsImage: Bool { steps.contains { $0 != .sparse } }

    /// The zbar scan density for this pass: 2 when sparse, else the reader's.
    func scanDensity(_ readerDensity: Int) -> Int { steps.contains(.sparse) ? max(2, readerDensity) : readerDensity }

    /// This pass's steps applied to each region `CodeRegionFinder` marks in `view`, cropped
    /// straight from it (the camera preset's first pass needs no copy of the whole frame); none
    /// when it marks none, or so many that they cover most of the image.
    func applyInRegions(of view: ImageView) -> [(image: GrayImage, map: PointMap, lines: ScanLines)] {
        guard let regions = CodeRegionFinder().regions(in: view), !regions.isEmpty else { return [] }
        // A later rotation turns the bars: the region's scan direction no longer holds.
        let turned = steps.contains { if case .rotate = $0 { return true } else { return false } }
        return regions.flatMap { r in
            apply(to: view.cropped(x: r.x, y: r.y, width: r.width, height: r.height)).map {
                ($0.image, PointMap.identity.after(.translate(r.x, r.y)).appending($0.map), turned ? .both : r.lines)
            }
        }
    }

    /// Applies the steps; returns no image when a step has nothing to add (e.g. stretching a
    /// full-range image), so the pass is skipped rather than repeating an earlier one, and
    /// several when a step offers candidates (rectification, regions), each with the scan lines
    /// zbar needs on it.
    func apply(to image: GrayImage) -> [(image: GrayImage, map: PointMap, lines: ScanLines)] {
        var current = image
        var map = PointMap.identity
        for (index, step) in steps.enumerated() {
            let next: GrayImage
            switch step {
            case .downscale(let f):
                guard current.width / f >= 16, current.height / f >= 16 else { return [] }
                next = current.withView { $0.downscaled(by: f) }
                map = map.after(.scale(Double(f)))
            case .upscale(let f):
                next = current.withView { $0.upscaled(by: f) }
                map = map.after(.scale(1 / Double(f)))
            case .invert:
                next = current.withView { $0.inverted() }
            case .stretch:
                guard let s = current.withView({ $0.contrastStretched() }) else { return [] }
                next = s
            case .blur:
                next = current.withView { $0.blurred() }
            case .binarize:
                next = current.withView { $0.binarized() }
            case .pad(let percent):
                let margin = max(8, max(current.width, current.height) * percent / 100)
                next = current.withView { $0.padded(by: margin) }
                map = map.after(.translate(-margin, -margin))
            case .erode:
                next = current.withView { $0.eroded() }
            case .dilate:
                next = current.withView { $0.dilated() }
            case .sharpen:
                next = current.withView { $0.sharpened() }
            case .regions:
                let rest = ScanPass(Array(steps[(index + 1)...]))
                return current.withView { rest.applyInRegions(of: $0) }.map { ($0.image, map.appending($0.map), $0.lines) }
            case .rectify:
                // Several candidate warps; each continues through the remaining steps.
                let rest = ScanPass(Array(steps[(index + 1)...]))
                return QRRectifier.candidates(from: current).flatMap { candidate in
                    rest.apply(to: candidate.image).map { ($0.image, map.after(.homography(candidate.toSource)).appending($0.map), $0.lines) }
                }
            case .rotate(let d):
                let (rotated, geometry) = current.withView { $0.rotated(degrees: Double(d)) }
                next = rotated
                map = map.after(.rotation(geometry))
            case .sparse:
                // A way of scanning, not of changing the image (see `scanDensity`).
                continue
            }
            current = next
        }
        return [(current, map, .both)]
    }
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
