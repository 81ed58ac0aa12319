// Point and neighbourhood operations the scan passes use (SCN-4). All take a view and return a
// new tightly packed image; none keeps a reference to the input. Each checks the size of what it
// allocates against its `WorkBudget` first and the budget's deadline while it runs (SCN-10):
// the input may be a caller's view (a camera buffer) that no loader has checked.

extension ImageView {
    /// Light-on-dark becomes dark-on-light (inverted QR codes; zbar reads dark modules only).
    public func inverted(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        try map(budget: budget, for: "invert") { 255 &- $0 }
    }

    /// Linear stretch so the 1st..99th percentile spans 0...255: low-contrast labels (faded
    /// thermal prints, glare) get edges zbar's edge detector can see. Returns nil when the image
    /// is already full-range (the pass would be a repeat of the plain one).
    public func contrastStretched(lowFraction: Double = 0.01, highFraction: Double = 0.99,
                                  budget: WorkBudget = .standard) throws(TransformError) -> GrayImage? {
        let total = try budget.checkSize(width: width, height: height, for: "stretch")
        var histogram = [Int](repeating: 0, count: 256)
        var meter = budget.meter("stretch")
        for y in 0..<height {
            let row = y * rowStride
            for x in 0..<width { histogram[Int(pixels[row + x])] += 1 }
            try meter.advance(by: width)
        }
        guard total > 0 else { return nil }
        let lowTarget = Int(Double(total) * lowFraction)
        let highTarget = Int(Double(total) * highFraction)
        var cumulative = 0
        var low = 0, high = 255
        var foundLow = false
        for level in 0..<256 {
            cumulative += histogram[level]
            if !foundLow && cumulative > lowTarget { low = level; foundLow = true }
            if cumulative >= highTarget { high = level; break }
        }
        // Already spans nearly the whole range, or is flat: stretching adds nothing.
        if high - low >= 230 || high <= low { return nil }
        var table = [UInt8](repeating: 0, count: 256)
        let span = Double(high - low)
        for level in 0..<256 {
            let v = (Double(level - low) / span * 255).rounded()
            table[level] = UInt8(max(0, min(255, v)))
        }
        return try table.withUnsafeBufferPointer { (t) throws(TransformError) -> GrayImage in
            try map(budget: budget, for: "stretch") { t[Int($0)] }
        }
    }

    /// Adaptive threshold against the local mean over a square window (integral image): evens
    /// out shadows and uneven lighting across a photographed label. Output is 0 or 255.
    ///
    /// Inside a dark area wider than the window the local mean equals the pixel, so the local
    /// test alone turns it white, keeping only its outline. That outline-only image is what the
    /// `binarize` scan pass wants (measured: zbar reads more photos from it); shape detection
    /// (QR finder patterns) needs solid areas, so with `keepDarkAreas` a pixel whose local mean
    /// is itself below the global (Otsu) threshold is decided by that global threshold.
    public func binarized(window: Int? = nil, offset: Int = 8, keepDarkAreas: Bool = false,
                          budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let w = width, h = height
        var out = try GrayImage(width: w, height: h, fill: 255, budget: budget, for: "binarize")
        guard w > 0, h > 0 else { return out }
        let radius = max(4, (window ?? max(w, h) / 16) / 2)
        let global = keepDarkAreas ? otsuThreshold() : 0
        // The integral image has (w + 1) x (h + 1) entries: a working buffer proportional to the
        // output, which the budget already bounds; only its size arithmetic needs a check.
        let (entries, overflow) = (w + 1).multipliedReportingOverflow(by: h + 1)
        guard !overflow else {
            throw TransformError(.tooLarge, "binarize of a \(w) x \(h) image overflows its working buffer",
                                 context: ["operation": "binarize", "width": "\(w)", "height": "\(h)", "limit": "\(budget.maxPixels)"])
        }
        // Sums as UInt32 with wrapping arithmetic: a window's sum comes out exact (mod 2^32 and
        // below 2^32) whenever the largest window holds at most 2^32 / 255 pixels, which the
        // default window always does within the pixel budget; half the memory of UInt64, the
        // largest buffer of any pass. Larger windows take UInt64.
        let (largestWindow, windowOverflow) = min(w, 2 * radius + 1).multipliedReportingOverflow(by: min(h, 2 * radius + 1))
        if !windowOverflow && largestWindow <= Int(UInt32.max / 255) {
            try thresholdAgainstLocalMean(UInt32.self, entries: entries, radius: radius, offset: offset, global: global, into: &out, budget: budget)
        } else {
            try thresholdAgainstLocalMean(UInt64.self, entries: entries, radius: radius, offset: offset, global: global, into: &out, budget: budget)
        }
        return out
    }

    /// `binarized`'s work with `Sum` as the integral image's entry type (see there); internal
    /// so tests can compare the two widths.
    func thresholdAgainstLocalMean<Sum: FixedWidthInteger & UnsignedInteger>(
        _: Sum.Type, entries: Int, radius: Int, offset: Int, global: Int, into out: inout GrayImage, budget: WorkBudget
    ) throws(TransformError) {
        let w = width, h = height, iw = w + 1
        var integral = [Sum](repeating: 0, count: entries)
        var meter = budget.meter("binarize")
        try integral.withUnsafeMutableBufferPointer { (ii) throws(TransformError) in
            for y in 0..<h {
                var rowSum: Sum = 0
                let src = y * rowStride
                for x in 0..<w {
                    rowSum &+= Sum(pixels[src + x])
                    ii[(y + 1) * iw + x + 1] = ii[y * iw + x + 1] &+ rowSum
                }
                try meter.advance(by: w)
            }
        }
        try integral.withUnsafeBufferPointer { (ii) throws(TransformError) in
            try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
                for y in 0..<h {
                    let y0 = max(0, y - radius), y1 = min(h, y + radius + 1)
                    for x in 0..<w {
                        let x0 = max(0, x - radius), x1 = min(w, x + radius + 1)
                        let sum = ii[y1 * iw + x1] &+ ii[y0 * iw + x0] &- ii[y0 * iw + x1] &- ii[y1 * iw + x0]
                        let count = Sum((y1 - y0) * (x1 - x0))
                        let v = Int(pixels[y * rowStride + x])
                        let mean = Int(sum / count)
                        let dark = v < mean - offset || (mean < global && v < global)
                        dst[y * w + x] = dark ? 0 : 255
                    }
                    try meter.advance(by: w)
                }
            }
        }
    }

    /// Otsu's threshold: the gray level that best splits the histogram into two classes. Levels
    /// no pixel has split the classes equally well; the middle of such a run is returned, so a
    /// two-tone image (a 1-bit scan: 0 and 255) is split at 128, not at 1, where a dark pixel
    /// in a window holding a few light ones would count as light.
    public func otsuThreshold() -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        forEachRow { row in for v in row { histogram[Int(v)] += 1 } }
        let total = Double(width * height)
        guard total > 0 else { return 128 }
        let sumAll = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var weightBelow = 0.0, sumBelow = 0.0, best = 0.0, low = 128, high = 128
        for level in 0..<256 {
            weightBelow += Double(histogram[level])
            if weightBelow == 0 { continue }
            let weightAbove = total - weightBelow
            if weightAbove == 0 { break }
            sumBelow += Double(level * histogram[level])
            let meanBelow = sumBelow / weightBelow, meanAbove = (sumAll - sumBelow) / weightAbove
            let between = weightBelow * weightAbove * (meanBelow - meanAbove) * (meanBelow - meanAbove)
            if between > best {
                best = between
                low = level + 1
                high = level + 1
            } else if between == best && histogram[level] == 0 {
                // An empty level leaves the split unchanged: the same value, exactly.
                high = level + 1
            }
        }
        return (low + high) / 2
    }

    /// 3x3 box blur: suppresses sensor noise and halftone dots that break zbar's edge detector.
    public func blurred(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let w = width, h = height
        var out = try GrayImage(width: w, height: h, budget: budget, for: "blur")
        guard w > 2, h > 2 else { return copy() }
        var meter = budget.meter("blur")
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<h {
                let ym = max(0, y - 1), yp = min(h - 1, y + 1)
                for x in 0..<w {
                    let xm = max(0, x - 1), xp = min(w - 1, x + 1)
                    var s = 0
                    for yy in [ym, y, yp] {
                        let r = yy * rowStride
                        s += Int(pixels[r + xm]) + Int(pixels[r + x]) + Int(pixels[r + xp])
                    }
                    dst[y * w + x] = UInt8(s / 9)
                }
                try meter.advance(by: w)
            }
        }
        return out
    }

    /// Applies `transform` to every pixel; `operation` names it in a budget error.
    @inlinable
    public func map(budget: WorkBudget = .standard, for operation: String = "map",
                    _ transform: (UInt8) -> UInt8) throws(TransformError) -> GrayImage {
        var out = try GrayImage(width: width, height: height, budget: budget, for: operation)
        var meter = budget.meter(operation)
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<height {
                let src = y * rowStride, d = y * width
                for x in 0..<width { dst[d + x] = transform(pixels[src + x]) }
                try meter.advance(by: width)
            }
        }
        return out
    }

    /// Calls `body` with each row's visible pixels.
    @inlinable
    public func forEachRow(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        for y in 0..<height {
            body(UnsafeBufferPointer(rebasing: pixels[(y * rowStride)..<(y * rowStride + width)]))
        }
    }
}
