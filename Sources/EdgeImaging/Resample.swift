// Scaling for the scan passes (SCN-4): huge photos are shrunk (zbar's cost grows with pixels and
// large modules blur into its scan lines), tiny codes are enlarged (zbar needs a few pixels per
// module to find QR finder patterns).

extension ImageView {
    /// Box-filter shrink to two thirds (a factor of 1.5): each output pixel is the mean of the
    /// 1.5 x 1.5 input pixels it covers, so every 3 x 3 block becomes 2 x 2 with weights 2:1 and
    /// 1:2 each way. For codes whose modules are 4-5 px: at 2.7-3.3 px zbar still finds their
    /// edges, and it scans 44% of the pixels (`BarcodeReader.plan`).
    public func downscaledThreeHalves(budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let w = width * 2 / 3, h = height * 2 / 3
        var out = try GrayImage(width: w, height: h, budget: budget, for: "downscale-1.5")
        guard w > 0, h > 0 else { return out }
        var meter = budget.meter("downscale-1.5")
        // Output x (or y) `o` reads input 3(o/2) and 3(o/2)+1 weighted 2:1 when o is even, and
        // 3(o/2)+1 and 3(o/2)+2 weighted 1:2 when odd: the last one read is below 3w/2 <= width.
        // Pointer loops: this runs before the first scan of many QR photos, so it must cost little
        // beside zbar. Measured on a 240 x 240 photo: 30 us, where indexed loops took 124 us, a
        // fifth of that photo's whole read.
        guard let source = pixels.baseAddress else { return out }
        // Each output row first sums its two input rows, weighted, into `columns` (a loop the
        // compiler vectorizes), then shrinks that row 3 -> 2.
        let columns = UnsafeMutablePointer<UInt16>.allocate(capacity: width)
        defer { columns.deallocate() }
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            guard let target = dst.baseAddress else { return }
            for oy in 0..<h {
                let top = source + (3 * (oy / 2) + (oy & 1)) * rowStride, bottom = top + rowStride
                let (upper, lower): (UInt16, UInt16) = oy & 1 == 0 ? (2, 1) : (1, 2)
                for x in 0..<width { columns[x] = upper &* UInt16(top[x]) &+ lower &* UInt16(bottom[x]) }
                let row = target + oy * w
                var ox = 0, x = 0
                while ox + 1 < w {
                    let a = UInt32(columns[x]), b = UInt32(columns[x + 1]), c = UInt32(columns[x + 2])
                    row[ox] = UInt8(truncatingIfNeeded: (2 &* a &+ b &+ 4) / 9)
                    row[ox + 1] = UInt8(truncatingIfNeeded: (b &+ 2 &* c &+ 4) / 9)
                    ox += 2
                    x += 3
                }
                if ox < w { row[ox] = UInt8(truncatingIfNeeded: (2 &* UInt32(columns[x]) &+ UInt32(columns[x + 1]) &+ 4) / 9) }
                try meter.advance(by: w * 3)
            }
        }
        return out
    }

    /// Box-filter shrink by an integer factor (each output pixel is the mean of factor x factor).
    public func downscaled(by factor: Int, budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        guard factor >= 1 else {
            throw TransformError(.badParameter, "downscale by \(factor): the factor must be at least 1", context: ["operation": "downscale"])
        }
        let w = width / factor, h = height / factor
        var out = try GrayImage(width: w, height: h, budget: budget, for: "downscale-\(factor)")
        guard w > 0, h > 0 else { return out }
        let area = factor * factor
        var meter = budget.meter("downscale-\(factor)")
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            if factor == 2, let source = pixels.baseAddress, let target = dst.baseAddress {
                // The plan's most common shrink, written out with pointers, the two rows summed
                // first (a loop the compiler vectorizes): 11 us on a 240 x 240 photo, where
                // indexed loops took 46 us.
                let columns = UnsafeMutablePointer<UInt16>.allocate(capacity: 2 * w)
                defer { columns.deallocate() }
                for oy in 0..<h {
                    let top = source + 2 * oy * rowStride, bottom = top + rowStride
                    for x in 0..<(2 * w) { columns[x] = UInt16(top[x]) &+ UInt16(bottom[x]) }
                    let row = target + oy * w
                    for ox in 0..<w { row[ox] = UInt8(truncatingIfNeeded: (columns[2 * ox] &+ columns[2 * ox + 1]) / 4) }
                    try meter.advance(by: w * area)
                }
                return
            }
            let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: w)
            defer { sums.deallocate() }
            for oy in 0..<h {
                sums.update(repeating: 0)
                for dy in 0..<factor {
                    let row = (oy * factor + dy) * rowStride
                    for ox in 0..<w {
                        var s = 0
                        let base = row + ox * factor
                        for dx in 0..<factor { s += Int(pixels[base + dx]) }
                        sums[ox] += s
                    }
                }
                for ox in 0..<w { dst[oy * w + ox] = UInt8(sums[ox] / area) }
                try meter.advance(by: w * area)
            }
        }
        return out
    }

    /// Bilinear enlargement by an integer factor.
    public func upscaled(by factor: Int, budget: WorkBudget = .standard) throws(TransformError) -> GrayImage {
        let operation = "upscale-\(factor)"
        guard factor >= 1 else {
            throw TransformError(.badParameter, "upscale by \(factor): the factor must be at least 1", context: ["operation": "upscale"])
        }
        // Each side is checked on its own first: the product check alone would pass a side that
        // overflowed.
        let (w, wOverflow) = width.multipliedReportingOverflow(by: factor)
        let (h, hOverflow) = height.multipliedReportingOverflow(by: factor)
        guard !wOverflow, !hOverflow else {
            throw TransformError(.tooLarge, "\(operation) of a \(width) x \(height) image overflows its size; the limit is \(budget.maxPixels) pixels",
                                 context: ["operation": operation, "width": "\(width)", "height": "\(height)", "limit": "\(budget.maxPixels)"])
        }
        var out = try GrayImage(width: w, height: h, budget: budget, for: operation)
        guard width > 0, height > 0 else { return out }
        let f = Double(factor)
        var meter = budget.meter(operation)
        try out.pixels.withUnsafeMutableBufferPointer { (dst) throws(TransformError) in
            for y in 0..<h {
                let sy = max(0, (Double(y) + 0.5) / f - 0.5)
                let y0 = min(Int(sy), height - 1), y1 = min(y0 + 1, height - 1)
                let wy = sy - Double(y0)
                for x in 0..<w {
                    let sx = max(0, (Double(x) + 0.5) / f - 0.5)
                    let x0 = min(Int(sx), width - 1), x1 = min(x0 + 1, width - 1)
                    let wx = sx - Double(x0)
                    let p00 = Double(pixels[y0 * rowStride + x0]), p01 = Double(pixels[y0 * rowStride + x1])
                    let p10 = Double(pixels[y1 * rowStride + x0]), p11 = Double(pixels[y1 * rowStride + x1])
                    let top = p00 + (p01 - p00) * wx, bottom = p10 + (p11 - p10) * wx
                    dst[y * w + x] = UInt8(max(0, min(255, (top + (bottom - top) * wy).rounded())))
                }
                try meter.advance(by: w)
            }
        }
        return out
    }

    /// Copies a rectangle (clamped to the image as `region` clamps it).
    public func cropped(x: Int, y: Int, width cw: Int, height ch: Int) -> GrayImage {
        region(x: x, y: y, width: cw, height: ch).copy()
    }
}
