import EdgeImaging

/// Finds where in a large frame codes may be, cheaply, so zbar scans those regions instead of
/// the whole frame (SCN-4 region of interest, SCN-12 frame time).
///
/// zbar's cost per frame is mostly its per-pixel edge filter, and it grows with everything that
/// is not flat: sensor noise, lighting gradients and clutter (measured on the Benchmarks'
/// 1280x720 frames: 2.5 ms for a flat frame, 14-16 ms for the cluttered one, at density 2).
/// Every code, 1D or QR, shows on a scan line as a dense run of alternating edges: many edges,
/// each close to the last. The finder walks every `step`-th row and column with a central
/// difference, keeps such runs, and counts them in a grid of `cell`-pixel cells. A cell crossed
/// by a dense run on (nearly) every sampled line belongs to a code; text and clutter cross a
/// cell on a line or two. Neighbouring code cells form a region, grown by a quiet zone, and
/// whether its runs lie along rows, columns or both says how zbar must scan it.
struct CodeRegionFinder {
    struct Region: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        /// Which scan lines zbar needs there: a region whose runs lie only along rows holds a 1D
        /// code with upright bars, read by scanning rows; one with runs both ways holds a QR code
        /// (or a 1D code near 45 degrees) and needs both.
        var lines: ScanLines
        var area: Int { width * height }

        func union(_ o: Region) -> Region {
            let x0 = min(x, o.x), y0 = min(y, o.y)
            return Region(x: x0, y: y0, width: max(x + width, o.x + o.width) - x0, height: max(y + height, o.y + o.height) - y0,
                          lines: lines == o.lines ? lines : .both)
        }

        /// Do the two share at least half of the smaller one?
        func mostlyOverlaps(_ o: Region) -> Bool {
            let ix = min(x + width, o.x + o.width) - max(x, o.x)
            let iy = min(y + height, o.y + o.height) - max(y, o.y)
            guard ix > 0, iy > 0 else { return false }
            return 2 * ix * iy >= min(area, o.area)
        }
    }

    /// Distance between the sampled lines, in pixels.
    var step = 4
    /// Side of a grid cell, in pixels: four sampled lines each way.
    var cell = 16
    /// Edges a run needs to count as code-like: a version-1 QR row has about 12, an EAN-13 59.
    var minimumEdges = 12
    /// Largest distance between two edges of one run: four modules of 5 px, or five light QR
    /// modules of 4 px in a row. Larger gaps end a run, so it does not wander off into clutter.
    var maximumGap = 20
    /// Largest mean distance between a run's edges. A code's elements are one to four modules
    /// wide, so its edges come every 1.5-2 modules: 10 px passes codes of up to about 6 px per
    /// module (larger ones are left to the whole-frame scan), while lines and box edges crossing
    /// a scan line every 20-30 px in clutter do not pass.
    var maximumMeanGap = 10
    /// Dense runs through a cell, rows and columns together, for it to count as part of a code:
    /// all four sampled lines of one direction.
    var minimumHits = 4
    /// At most this many regions, strongest first; what the finder misses the caller's
    /// whole-frame scan finds.
    var maximumRegions = 8
    /// Rows and columns are looked at 16 samples at a time (`edgeLanes`). Only a test turns it
    /// off, to hold the result to that of every sample looked at.
    var skipsFlatBlocks = true
    /// Whether regions whose runs lie one way only (a 1D code's) are wanted. Without them (a
    /// reader of QR alone) only a QR code's shape counts: runs both ways in nearly equal numbers,
    /// over at least 2 x 2 cells; and columns are sampled at every second row. Issue #32: the
    /// finder and the clutter it marked were most of the QR preset's frame; its regions pass
    /// went from 11.1 M to 5.8 M instructions on the Benchmarks' QR frame and from 8.2 M to
    /// 3.7 M on the empty one (callgrind), with the same codes read from their regions.
    var linear = true
    /// Distance between the samples down a column: every row, or every second without `linear`.
    /// The central difference spans two rows, so every second one still sees each edge; QR
    /// modules are at least 2 px here (smaller ones zbar does not read at the camera preset's
    /// density), and a run of edges 2 px apart keeps its count.
    private var columnSampleStep: Int { linear ? 1 : 2 }

    /// Regions to scan, strongest first, or nil when nothing looks like a code or the code-like
    /// places would cost more than `maximumCoverage` of a whole-frame scan (scanning it whole
    /// is then as cheap).
    ///
    /// It allocates two grids of one counter per cell (a 256th of the pixels each) and checks
    /// `budget`'s deadline line by line.
    func regions(in view: ImageView, maximumCoverage: Double = 0.4, budget: WorkBudget = .standard) throws(TransformError) -> [Region]? {
        let w = view.width, h = view.height
        guard w >= 2 * cell, h >= 2 * cell else { return nil }
        // Codes with modules larger than the dense-run test allows are left to the caller's
        // whole-frame scan: looking at shrunk copies too was measured to find clutter there.
        let candidates = try candidates(in: view, budget: budget).map { (region: grow($0.region, width: w, height: h), score: $0.score) }
            .sorted { $0.score > $1.score }
        var chosen: [Region] = []
        var cost = 0
        for candidate in candidates.prefix(maximumRegions) {
            let region = candidate.region
            if let i = chosen.firstIndex(where: { $0.mostlyOverlaps(region) }) {
                // A weaker region much smaller than the one it overlaps (clutter next to a code,
                // the ends of a code's bars) widens it but does not change how it is scanned.
                var union = chosen[i].union(region)
                if 2 * region.area <= chosen[i].area { union.lines = chosen[i].lines }
                cost += Self.cost(union) - Self.cost(chosen[i])
                chosen[i] = union
            } else {
                chosen.append(region)
                cost += Self.cost(region)
            }
        }
        guard !chosen.isEmpty, Double(cost) <= maximumCoverage * Double(2 * w * h) else { return nil }
        return chosen
    }

    /// Code-like regions of `view`, each with its score (the dense runs through it).
    private func candidates(in view: ImageView, budget: WorkBudget) throws(TransformError) -> [(region: Region, score: Int)] {
        let w = view.width, h = view.height
        let threshold = edgeThreshold(view)
        let gw = (w + cell - 1) / cell, gh = (h + cell - 1) / cell
        let cells = try budget.checkSize(width: gw, height: gh, for: "regions")
        var rowHits = [Int](repeating: 0, count: cells)
        var columnHits = [Int](repeating: 0, count: cells)
        for run in try rowRuns(view, threshold: threshold, budget: budget) {
            let cy = run.line / cell
            for cx in (run.start / cell)...(run.end / cell) { rowHits[cy * gw + cx] += 1 }
        }
        for run in try columnRuns(view, threshold: threshold, budget: budget) {
            let cx = run.line / cell
            for cy in (run.start / cell)...(run.end / cell) { columnHits[cy * gw + cx] += 1 }
        }
        let found = components(rowHits: rowHits, columnHits: columnHits, gridWidth: gw, gridHeight: gh)
        return linear ? found : found.filter { $0.region.lines == .both }
    }

    /// zbar's work for a region, in samples per unit density: rows and columns each cover every
    /// pixel once.
    private static func cost(_ r: Region) -> Int { r.lines == .both ? 2 * r.area : r.area }

    /// Connected (8-neighbour) groups of code cells, as pixel boxes with the scan lines they need
    /// and a score (the dense runs through them).
    private func components(rowHits: [Int], columnHits: [Int], gridWidth gw: Int, gridHeight gh: Int) -> [(region: Region, score: Int)] {
        var seen = [Bool](repeating: false, count: gw * gh)
        var found: [(region: Region, score: Int)] = []
        var stack: [Int] = []
        for start in 0..<(gw * gh) where !seen[start] && rowHits[start] + columnHits[start] >= minimumHits {
            var x0 = gw, y0 = gh, x1 = -1, y1 = -1, rows = 0, columns = 0, cells = 0
            seen[start] = true
            stack.append(start)
            while let i = stack.popLast() {
                let cx = i % gw, cy = i / gw
                x0 = min(x0, cx); x1 = max(x1, cx); y0 = min(y0, cy); y1 = max(y1, cy)
                rows += rowHits[i]; columns += columnHits[i]; cells += 1
                for ny in max(0, cy - 1)...min(gh - 1, cy + 1) {
                    for nx in max(0, cx - 1)...min(gw - 1, cx + 1) {
                        let j = ny * gw + nx
                        if !seen[j] && rowHits[j] + columnHits[j] >= minimumHits {
                            seen[j] = true
                            stack.append(j)
                        }
                    }
                }
            }
            // One cell is a 16 px blot: no code is that small at the sizes this finder serves.
            // Without `linear` the code is a QR code, at least 63 px square at the 3 px modules
            // the camera preset reads, so it covers at least 2 x 2 cells.
            guard cells >= (linear ? 2 : 4) else { continue }
            // A QR code makes as many dense runs down its columns as along its rows; a 1D code's
            // runs lie one way. The factor of 4 lets a 1D code near 45 degrees be scanned both
            // ways; without `linear` only a QR code's square shape counts (the Benchmarks' 4 px
            // code: 58 runs along, 71 down), and clutter where text crosses an edge does not.
            let lines: ScanLines = (linear ? 4 : 2) * min(rows, columns) >= max(rows, columns) ? .both : (rows > columns ? .rows : .columns)
            let region = Region(x: x0 * cell, y: y0 * cell, width: (x1 - x0 + 1) * cell, height: (y1 - y0 + 1) * cell, lines: lines)
            found.append((region, rows + columns))
        }
        return found
    }

    /// Adds a quiet zone where the region needs one: zbar needs light space before a 1D code's
    /// start and after its stop (ten modules; a tenth of the run's length covers it for a code
    /// of 100+ modules), along the scan lines; a QR code's finder patterns need their light
    /// border on every side. Clipped to the frame.
    private func grow(_ r: Region, width: Int, height: Int) -> Region {
        let along = max(cell, (r.lines == .columns ? r.height : r.width) / 10)
        let both = max(cell, max(r.width, r.height) / 10)
        let (mx, my): (Int, Int)
        switch r.lines {
        case .both: (mx, my) = (both, both)
        case .rows: (mx, my) = (along, step)
        case .columns: (mx, my) = (step, along)
        }
        let x0 = max(0, r.x - mx), y0 = max(0, r.y - my)
        let x1 = min(width, r.x + r.width + mx), y1 = min(height, r.y + r.height + my)
        return Region(x: x0, y: y0, width: x1 - x0, height: y1 - y0, lines: r.lines)
    }

    /// A dense run on one sampled line: the line's position, and its first and last edge.
    struct Run {
        var line: Int
        var start: Int
        var end: Int
    }

    /// Tracks one scan line's edges as its samples arrive in order. Only the samples at or over
    /// the threshold are given to it: a flat sample only ends the current sign, which `sample`
    /// sees from the position of the last sample it was given, so flat stretches cost nothing.
    struct LineTracker {
        /// The sign of the difference at `signedAt`, the last position given to `sample`.
        var runSign: Int8 = 0
        var signedAt = Int.min / 2
        /// Distance between the line's samples: the previous sample was at `i - stride`.
        var stride = 1
        var lastEdge = Int.min / 2
        var start = 0
        var edges = 0

        /// `d` is the central difference at position `i`; returns a finished dense run, if any.
        mutating func sample(_ d: Int, at i: Int, _ finder: CodeRegionFinder, threshold: Int) -> (start: Int, end: Int)? {
            let sign: Int8 = d >= threshold ? 1 : (d <= -threshold ? -1 : 0)
            // The sample before this one was flat unless it was the last one given.
            let previous: Int8 = signedAt == i &- stride ? runSign : 0
            runSign = sign
            signedAt = i
            // An edge is where the difference first crosses the threshold with a new sign.
            guard sign != 0, sign != previous else { return nil }
            var finished: (start: Int, end: Int)? = nil
            if i - lastEdge > finder.maximumGap {
                if isDense(finder) { finished = (start, lastEdge) }
                edges = 0
                start = i
            }
            edges += 1
            lastEdge = i
            return finished
        }

        mutating func finish(_ finder: CodeRegionFinder) -> (start: Int, end: Int)? {
            defer { edges = 0 }
            return isDense(finder) ? (start, lastEdge) : nil
        }

        private func isDense(_ finder: CodeRegionFinder) -> Bool {
            edges >= finder.minimumEdges && lastEdge - start <= finder.maximumMeanGap * (edges - 1)
        }
    }

    /// The edge threshold: at least 16 grey levels, and well above the frame's noise (five times
    /// the median difference between neighbours, from a sample of rows), so a noisy sensor does
    /// not turn flat areas into runs of edges.
    private func edgeThreshold(_ view: ImageView) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        let p = view.pixels, s = view.rowStride
        for y in Swift.stride(from: view.height / 16, to: view.height, by: max(1, view.height / 16)) {
            let row = y * s
            for x in Swift.stride(from: 1, to: view.width - 1, by: 2) {
                histogram[abs(Int(p[row + x + 1]) - Int(p[row + x - 1]))] += 1
                count += 1
            }
        }
        var seen = 0, median = 0
        for (level, n) in histogram.enumerated() {
            seen += n
            if seen * 2 >= count { median = level; break }
        }
        return max(16, min(64, median * 5))
    }

    /// Rows and columns are looked at in blocks of 16 samples (SSE2 on x86-64), and only the
    /// samples at or over the threshold are given to the trackers (`LineTracker` needs no other):
    /// most of a frame is flat, and most samples of a cluttered one too. Issue #32: the finder
    /// was most of an idle camera's frame.
    private static let block = 16

    /// The threshold in every lane, and the largest value a lane can add it to without wrapping.
    private struct Limit {
        let threshold: SIMD16<UInt8>
        let ceiling: SIMD16<UInt8>
        init(_ threshold: Int) {
            let t = UInt8(clamping: threshold)
            self.threshold = SIMD16(repeating: t)
            ceiling = SIMD16(repeating: 255 - t)
        }
        /// The lowest bit of each lane's byte.
        let oneBitPerLane = SIMD2<UInt64>(repeating: 0x0101_0101_0101_0101)
    }

    /// Which of the 16 differences `next - previous` reach the threshold either way, as one bit
    /// per lane (bit 8k of the first word for lane k < 8, of the second for lane 8 + k). Only
    /// comparisons, wrapping adds and masks, which compile to single SSE2 instructions; the standard library's pointwiseMax/Min and `any` are calls (measured slower
    /// than the scalar loop). `a >= b + t` is only asked where `b + t` does not wrap.
    @inline(__always)
    private static func edgeLanes(_ next: UnsafeRawPointer, _ previous: UnsafeRawPointer, limit: Limit) -> SIMD2<UInt64> {
        let a = next.loadUnaligned(as: SIMD16<UInt8>.self), b = previous.loadUnaligned(as: SIMD16<UInt8>.self)
        let rising = (a .>= b &+ limit.threshold) .& (b .<= limit.ceiling)
        let falling = (b .>= a &+ limit.threshold) .& (a .<= limit.ceiling)
        return unsafeBitCast(rising .| falling, to: SIMD2<UInt64>.self) & limit.oneBitPerLane
    }

    /// Gives difference `d` at position `i` of a line to its tracker, keeping a finished dense run.
    @inline(__always)
    private func look(_ d: Int, at i: Int, line: Int, _ tracker: inout LineTracker, _ runs: inout [Run], threshold: Int) {
        if d >= threshold || d <= -threshold, let r = tracker.sample(d, at: i, self, threshold: threshold) {
            runs.append(Run(line: line, start: r.start, end: r.end))
        }
    }

    private func rowRuns(_ view: ImageView, threshold: Int, budget: WorkBudget) throws(TransformError) -> [Run] {
        var runs: [Run] = []
        let p = view.pixels, s = view.rowStride, w = view.width
        guard let base = p.baseAddress.map(UnsafeRawPointer.init) else { return runs }
        let limit = Limit(threshold)
        var meter = budget.meter("regions")
        for y in Swift.stride(from: step / 2, to: view.height, by: step) {
            try meter.advance(by: w)
            var tracker = LineTracker()
            let row = y * s
            var x = 1
            // Samples x..<x+16 read pixels x-1...x+16, all in the row while x+16 <= w-1.
            while skipsFlatBlocks && x &+ Self.block <= w &- 1 {
                let lanes = Self.edgeLanes(base + (row &+ x &+ 1), base + (row &+ x &- 1), limit: limit)
                // The words taken apart once: indexing the vector in a loop spills it to memory.
                var bits = lanes[0], high = lanes[1], offset = x
                while bits | high != 0 {
                    if bits == 0 { (bits, high, offset) = (high, 0, x &+ 8) }
                    let at = offset &+ bits.trailingZeroBitCount &>> 3
                    bits &= bits &- 1
                    look(Int(p[row &+ at &+ 1]) &- Int(p[row &+ at &- 1]), at: at, line: y, &tracker, &runs, threshold: threshold)
                }
                x &+= Self.block
            }
            // In bounds: 1 <= x < w - 1 on a row of the view.
            while x < w - 1 {
                look(Int(p[row &+ x &+ 1]) &- Int(p[row &+ x &- 1]), at: x, line: y, &tracker, &runs, threshold: threshold)
                x &+= 1
            }
            if let r = tracker.finish(self) { runs.append(Run(line: y, start: r.start, end: r.end)) }
        }
        return runs
    }

    /// Columns are walked row by row (all trackers advance together), so memory is read in order.
    /// (Blocks of 16 as in `rowRuns` were measured dearer here, where each holds only four
    /// sampled columns or fewer: callgrind on the Benchmarks' empty frame, 3.4 M instructions a
    /// frame with every eighth column sampled, against 1.8 M one by one.)
    private func columnRuns(_ view: ImageView, threshold: Int, budget: WorkBudget) throws(TransformError) -> [Run] {
        var runs: [Run] = []
        let p = view.pixels, s = view.rowStride, w = view.width
        let first = step / 2
        let count = first < w ? (w - 1 - first) / step + 1 : 0
        let down = columnSampleStep
        var trackers = [LineTracker](repeating: LineTracker(stride: down), count: count)
        var meter = budget.meter("regions")
        for y in Swift.stride(from: 1, to: view.height - 1, by: down) {
            try meter.advance(by: count)
            let above = (y - 1) * s, below = (y + 1) * s
            // One uniqueness check per row instead of one per sample.
            trackers.withUnsafeMutableBufferPointer { trackers in
                var x = first
                for index in 0..<count {
                    look(Int(p[below &+ x]) &- Int(p[above &+ x]), at: y, line: x, &trackers[index], &runs, threshold: threshold)
                    x &+= step
                }
            }
        }
        for index in 0..<count {
            if let r = trackers[index].finish(self) { runs.append(Run(line: first + index * step, start: r.start, end: r.end)) }
        }
        return runs
    }
}
