import EdgeImaging

/// One image a pass made: how its points map back to the image the pass was given, the lines to
/// scan on it, and for the rectifier's warps the finder triple they came from (`BarcodeReader`
/// scans no more of a triple's warps once one of them reads).
///
/// Every transform computes the size of what it makes before allocating and throws `.tooLarge`
/// past `budget.maxPixels` (the loaders' pixel limit), and `.outOfTime` once the budget's
/// deadline passes while it runs (SCN-10).
struct PassImage {
    let image: GrayImage
    let map: PointMap
    let lines: ScanLines
    var triple: Int? = nil

    /// The images `pass` makes of `image`: its region's (the whole image, each code-like region,
    /// or each rectified QR candidate), transformed. None when a transform has nothing to add
    /// (e.g. stretching a full-range image), so the pass is skipped rather than repeating an
    /// earlier one.
    static func made(by pass: ScanPass, from image: GrayImage, budget: WorkBudget = .standard) throws(TransformError) -> [PassImage] {
        switch pass.region {
        case .regions:
            return try image.withView { (view) throws(TransformError) in try inRegions(of: view, by: pass, budget: budget) }
        case .whole:
            guard let (out, map) = try transformed(image, by: pass, budget: budget) else { return [] }
            return [PassImage(image: out, map: map, lines: out.withView { pass.lines.scanLines(in: $0) })]
        case .rectify:
            guard let (out, map) = try transformed(image, by: pass, budget: budget) else { return [] }
            try budget.checkTime(for: pass.description)
            // Several candidate warps, each scanned.
            return try QRRectifier.candidates(from: out, budget: budget).map { candidate in
                PassImage(image: candidate.image, map: map.after(.homography(candidate.toSource)),
                          lines: candidate.image.withView { pass.lines.scanLines(in: $0) }, triple: candidate.triple)
            }
        }
    }

    /// `pass`'s transforms applied to each region `CodeRegionFinder` marks in `view`, cropped
    /// straight from it (the camera preset's first pass needs no copy of the whole frame); none
    /// when it marks none, or so many that they cover most of the image. Without `linear` (no 1D
    /// symbology read) the regions whose runs lie one way only, a 1D code's, are left out: a QR
    /// code makes runs both ways, and zbar would scan them for nothing (issue #32: the QR preset
    /// spent about a millisecond a frame on a Code 128 in view).
    static func inRegions(of view: ImageView, by pass: ScanPass, budget: WorkBudget, linear: Bool = true) throws(TransformError) -> [PassImage] {
        guard let regions = try CodeRegionFinder(linear: linear).regions(in: view, budget: budget), !regions.isEmpty else { return [] }
        var out: [PassImage] = []
        for r in regions {
            // A crop is never larger than the view it comes from; the transforms check their own sizes.
            let crop = view.cropped(x: r.x, y: r.y, width: r.width, height: r.height)
            guard let (image, map) = try transformed(crop, by: pass, budget: budget) else { continue }
            out.append(PassImage(image: image, map: PointMap.identity.after(.translate(r.x, r.y)).appending(map),
                                 lines: pass.rotates ? .both : r.lines))
        }
        return out
    }

    /// `pass`'s transforms applied in order, with the map back to `image`; nil when one has
    /// nothing to add.
    private static func transformed(_ image: GrayImage, by pass: ScanPass, budget: WorkBudget) throws(TransformError) -> (GrayImage, PointMap)? {
        var current = image
        var map = PointMap.identity
        for transform in pass.transforms {
            try budget.checkTime(for: pass.description)
            guard let (next, piece) = try applying(transform, to: current, budget: budget) else { return nil }
            current = next
            if let piece { map = map.after(piece) }
        }
        return (current, map)
    }

    /// One transform of `image`, with the piece that maps its points back (nil when it moves
    /// none); nil when it has nothing to add.
    private static func applying(_ transform: ScanPass.Transform, to image: GrayImage,
                                 budget: WorkBudget) throws(TransformError) -> (GrayImage, PointMap.Piece?)? {
        try image.withView { (v) throws(TransformError) -> (GrayImage, PointMap.Piece?)? in
            switch transform {
            case .downscale(let f):
                guard v.width / f >= 16, v.height / f >= 16 else { return nil }
                return (try v.downscaled(by: f, budget: budget), .scale(Double(f)))
            case .downscaleThreeHalves:
                guard v.width * 2 / 3 >= 16, v.height * 2 / 3 >= 16 else { return nil }
                return (try v.downscaledThreeHalves(budget: budget), .scale(1.5))
            case .upscale(let f):
                return (try v.upscaled(by: f, budget: budget), .scale(1 / Double(f)))
            case .invert:
                return (try v.inverted(budget: budget), nil)
            case .stretch:
                return try v.contrastStretched(budget: budget).map { ($0, nil) }
            case .blur:
                return (try v.blurred(budget: budget), nil)
            case .binarize:
                return (try v.binarized(budget: budget), nil)
            case .pad(let percent):
                // The margin follows the longer side (a quiet zone in proportion to the code);
                // `padded` refuses when that makes the image too large, which for a long thin
                // image is long before the image itself is (its area grows with the square of
                // the length). The image is within the budget, so this product cannot overflow.
                let margin = max(8, max(v.width, v.height) * percent / 100)
                return (try v.padded(by: margin, budget: budget), .translate(-margin, -margin))
            case .clearBorder:
                let across = ScanLines.acrossBars(in: v)
                return (try v.clearingDarkEnds(rows: across != .columns, columns: across != .rows, budget: budget), nil)
            case .erode:
                return (try v.eroded(budget: budget), nil)
            case .dilate:
                return (try v.dilated(budget: budget), nil)
            case .sharpen:
                return (try v.sharpened(budget: budget), nil)
            case .rotate(let d):
                let (rotated, geometry) = try v.rotated(degrees: Double(d), budget: budget)
                return (rotated, .rotation(geometry))
            }
        }
    }
}
