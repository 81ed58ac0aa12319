// Neighbourhood filters for scan passes whose codes are drawn unusually (SCN-4).

extension ImageView {
    /// White border of `margin` pixels: zbar needs a quiet zone around a code, and crops, screen
    /// grabs and tightly printed labels often have none.
    ///
    /// The padded size is checked against `budget` before allocating: the margin callers derive
    /// from the longer side makes a long thin image's padded area grow with the square of its
    /// length (1,000,000 x 2 with 10 %: 1,200,000 x 200,002, 240 GB).
    public func padded(by margin: Int, budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let operation = "pad by \(margin) px"
        guard margin >= 0 else {
            throw TransformError(.badParameter, "\(operation): the margin must not be negative", context: ["operation": operation])
        }
        let (twice, o1) = margin.multipliedReportingOverflow(by: 2)
        let (w, o2) = width.addingReportingOverflow(twice)
        let (h, o3) = height.addingReportingOverflow(twice)
        guard !o1, !o2, !o3 else {
            throw TransformError(.tooLarge, "\(operation) of a \(width) x \(height) image overflows its size; the limit is \(budget.maxPixels) pixels",
                                 context: ["operation": operation, "width": "\(width)", "height": "\(height)", "limit": "\(budget.maxPixels)"])
        }
        var out = try GrayImage(width: w, height: h, budget: budget, for: operation)
        var meter = budget.meter(operation)
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<height {
                let d = (y + margin) * w + margin, s = y * rowStride
                for x in 0..<width { dst[d + x] = pixels[s + x] }
                try meter.advance(by: width)
            }
        }
        return out
    }

    /// The dark runs touching the ends of each row (`rows`) and of each column (`columns`)
    /// turned white. A photo cropped tight to a label often keeps a strip of dark background or
    /// frame at its sides, and zbar then finds no quiet zone before the first bar (the
    /// development photo ean13-1/n526.png: 12 px of black left of a 23 px quiet zone, 11 px
    /// right of an 8 px one). Dark is below the image's Otsu threshold.
    public func clearingDarkEnds(rows: Bool, columns: Bool, budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let operation = "clear dark ends"
        let w = width, h = height
        var out = try GrayImage(width: w, height: h, budget: budget, for: operation)
        guard w > 0, h > 0 else { return out }
        let threshold = UInt8(clamping: otsuThreshold())
        var meter = budget.meter(operation)
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<h {
                let d = y * w, s = y * rowStride
                for x in 0..<w { dst[d + x] = pixels[s + x] }
                try meter.advance(by: w)
            }
            // Whitens the dark run at each end of the line of `count` pixels from `start`, `step` apart.
            func clearEnds(start: Int, step: Int, count: Int) {
                var i = 0
                while i < count && dst[start + i * step] < threshold { dst[start + i * step] = 255; i += 1 }
                i = count - 1
                while i >= 0 && dst[start + i * step] < threshold { dst[start + i * step] = 255; i -= 1 }
            }
            if rows {
                for y in 0..<h {
                    clearEnds(start: y * w, step: 1, count: w)
                    try meter.advance(by: w)
                }
            }
            if columns {
                for x in 0..<w {
                    clearEnds(start: x, step: w, count: h)
                    try meter.advance(by: h)
                }
            }
        }
        return out
    }

    /// 3x3 minimum filter: dark areas grow by a pixel. Joins dotted or rounded QR modules into the
    /// solid squares zbar's finder search expects, and closes breaks in thin, faded bars.
    public func eroded(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage { try extremum3x3(min, budget: budget, for: "erode") }

    /// 3x3 maximum filter: light areas grow by a pixel. After `eroded()` it is a morphological
    /// opening: dark modules keep their size while light speckle inside them (QR codes filled
    /// with a picture or texture) is gone.
    public func dilated(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage { try extremum3x3(max, budget: budget, for: "dilate") }

    /// The 3x3 minimum or maximum, separably: along rows into a temporary, then down columns.
    private func extremum3x3(_ pick: (UInt8, UInt8) -> UInt8, budget: WorkBudget, for operation: String) throws(TransformError) -> GrayImage {
        let w = width, h = height
        var out = try GrayImage(width: w, height: h, budget: budget, for: operation)
        guard w > 0, h > 0 else { return out }
        var tmp = [UInt8](repeating: 255, count: w * h)
        var meter = budget.meter(operation)
        for y in 0..<h {
            let s = y * rowStride
            for x in 0..<w {
                var m = pixels[s + x]
                if x > 0 { m = pick(m, pixels[s + x - 1]) }
                if x + 1 < w { m = pick(m, pixels[s + x + 1]) }
                tmp[y * w + x] = m
            }
            try meter.advance(by: w)
        }
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<h {
                for x in 0..<w {
                    var m = tmp[y * w + x]
                    if y > 0 { m = pick(m, tmp[(y - 1) * w + x]) }
                    if y + 1 < h { m = pick(m, tmp[(y + 1) * w + x]) }
                    dst[y * w + x] = m
                }
                try meter.advance(by: w)
            }
        }
        return out
    }

    /// Unsharp mask (2 x pixel - 3x3 mean): steepens the soft bar edges of out-of-focus photos so
    /// zbar's edge detector finds them.
    public func sharpened(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let blurredImage = try blurred(budget: budget)
        var out = try GrayImage(width: width, height: height, budget: budget, for: "sharpen")
        var meter = budget.meter("sharpen")
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<height {
                for x in 0..<width {
                    let v = 2 * Int(pixels[y * rowStride + x]) - Int(blurredImage.pixels[y * width + x])
                    dst[y * width + x] = UInt8(max(0, min(255, v)))
                }
                try meter.advance(by: width)
            }
        }
        return out
    }
}
