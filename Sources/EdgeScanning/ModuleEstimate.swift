import EdgeImaging

/// How wide a code's narrowest elements are in an image, guessed from the dark and light runs
/// along every eighth row and column, so the still-image plan can read codes with large modules
/// at half size first (`BarcodeReader.plan`).
///
/// A line counts when it has contrast (its brightest and darkest pixel differ by 48 or more) and
/// at least 6 changes between dark and light, split at the middle of its range. The runs between
/// its changes (not the partial ones at its ends) go into a histogram; the estimate is the first
/// quartile. Most runs across a code are one or two modules wide, while a light background
/// gives few runs, so the quartile lands on the module size; noise and fine print pull it down,
/// which only makes the plan more careful.
enum ModuleEstimate {
    /// Runs longer than this are counted as this long: only the quartile's side of it matters.
    static let longestCounted = 64

    /// The first quartile of the run lengths in pixels, or nil with fewer than 20 runs.
    static func narrowRun(in view: ImageView) -> Int? {
        runLengths(in: view).map(firstQuartile)
    }

    /// How many runs of each length (the index, in pixels; the last counts every longer run)
    /// cross the contrasted lines, or nil with fewer than 20 runs. Reads a quarter of the pixels,
    /// every cache line of the image once: the sampled columns are gathered row by row into one
    /// buffer of an eighth of the image (walking each column down touched a new cache line per
    /// pixel, and on large images read every line eight times; it was most of this estimate's time).
    static func runLengths(in view: ImageView) -> [Int]? {
        var histogram = [Int](repeating: 0, count: longestCounted + 1)
        let w = view.width, h = view.height, stride = view.rowStride
        let columns = (w + 7) / 8
        var runs = [Int](repeating: 0, count: max(w, h))
        var gathered = [UInt8](repeating: 0, count: columns * h)
        histogram.withUnsafeMutableBufferPointer { histogram in
            runs.withUnsafeMutableBufferPointer { runs in
                for y in Swift.stride(from: 0, to: h, by: 8) {
                    count(UnsafeBufferPointer(rebasing: view.pixels[(y * stride)..<(y * stride + w)]), runs: runs, into: histogram)
                }
                gathered.withUnsafeMutableBufferPointer { gathered in
                    guard let source = view.pixels.baseAddress, let target = gathered.baseAddress else { return }
                    for y in 0..<h {
                        let row = source + y * stride
                        var into = target + y
                        for c in 0..<columns {
                            into.pointee = row[c &* 8]
                            into += h
                        }
                    }
                    for c in 0..<columns {
                        count(UnsafeBufferPointer(rebasing: gathered[(c * h)..<(c * h + h)]), runs: runs, into: histogram)
                    }
                }
            }
        }
        return histogram.reduce(0, +) >= 20 ? histogram : nil
    }

    static func firstQuartile(_ histogram: [Int]) -> Int {
        let total = histogram.reduce(0, +)
        var seen = 0
        for (length, n) in histogram.enumerated() {
            seen += n
            if 4 * seen >= total { return length }
        }
        return longestCounted
    }

    /// Adds the whole runs of one line to `histogram`; `runs` is scratch space as long as the line.
    ///
    /// Every QR read runs the estimate three times (the plan, and twice in the nested-code gate),
    /// so the colour changes are found 16 pixels at a time: a vector compare with the pixel
    /// before each, turned into a 16-bit mask whose set bits are the changes (most blocks of a
    /// code hold a few, most of a background none).
    private static func count(_ line: UnsafeBufferPointer<UInt8>, runs: UnsafeMutableBufferPointer<Int>,
                              into histogram: UnsafeMutableBufferPointer<Int>) {
        guard line.count >= 8, let base = line.baseAddress else { return }
        let length = line.count
        var lowest = SIMD16<UInt8>(repeating: .max), highest = SIMD16<UInt8>(repeating: 0)
        var i = 0
        while i + 16 <= length {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
            // Selects, not pointwiseMin/Max: those were calls, these one SSE2 instruction each.
            lowest = lowest.replacing(with: v, where: v .< lowest)
            highest = highest.replacing(with: v, where: v .> highest)
            i += 16
        }
        var low = lowest.min(), high = highest.max()
        while i < length {
            low = min(low, base[i])
            high = max(high, base[i])
            i += 1
        }
        guard Int(high) - Int(low) >= 48 else { return }
        let middle = UInt8((Int(high) + Int(low) + 1) / 2)
        var lastChange = -1
        var n = 0
        @inline(__always) func change(at position: Int) {
            if lastChange >= 0 {
                runs[n] = min(position - lastChange, longestCounted)
                n += 1
            }
            lastChange = position
        }
        let threshold = SIMD16<UInt8>(repeating: middle)
        i = 1
        while i + 16 <= length {
            let current = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
            let previous = UnsafeRawPointer(base + i - 1).loadUnaligned(as: SIMD16<UInt8>.self)
            var bits = ((current .< threshold) .^ (previous .< threshold)).laneBits
            while bits != 0 {
                change(at: i + bits.trailingZeroBitCount)
                bits &= bits &- 1
            }
            i += 16
        }
        while i < length {
            if (base[i] < middle) != (base[i - 1] < middle) { change(at: i) }
            i += 1
        }
        // Fewer than 6 changes is an edge or a line of text, not a code.
        guard n >= 5 else { return }
        for run in runs[..<n] { histogram[run] += 1 }
    }

}

extension SIMDMask where Storage == SIMD16<Int8> {
    /// Lane k as bit k: each lane's low bit multiplied up into its word's top byte (one bit per
    /// byte, so no carries). The weighted sums of the halves this replaced, and `any`, were
    /// calls; this is a mask, two multiplies and shifts.
    @inline(__always)
    var laneBits: UInt16 {
        let bytes = unsafeBitCast(self, to: SIMD2<UInt64>.self) & SIMD2(repeating: 0x0101_0101_0101_0101)
        let bits = (bytes &* SIMD2(repeating: 0x0102_0408_1020_4080)) &>> 56
        return UInt16(truncatingIfNeeded: bits[0] | bits[1] << 8)
    }
}
