import EdgeImaging

/// Finds QR finder patterns (the three 7x7 "eyes") by their 1:1:3:1:1 dark/light runs, checked
/// across and down, the classic way QR locators do it; written for edge's rectification pass.
struct QRFinderLocator {
    struct Finder: Equatable {
        var x: Double
        var y: Double
        /// Estimated module size in pixels.
        var module: Double
        /// How many scan rows confirmed it.
        var hits: Int
    }

    /// Finder patterns in a 0/255 binarised image, strongest first (at most `limit`).
    /// The deadline in `budget` is checked row by row: on a noisy image every row can hold
    /// candidates, and each is confirmed and merged into the list found so far.
    static func locate(in image: GrayImage, limit: Int = 8, budget: WorkBudget = .standard) throws(TransformError) -> [Finder] {
        var found: [Finder] = []
        let w = image.width, h = image.height
        guard w >= 21, h >= 21 else { return [] }
        var meter = budget.meter("rectify: finder search")
        try image.pixels.withUnsafeBufferPointer { (px) throws(TransformError) in
            var starts: [Int] = [], lengths: [Int] = []
            for y in 0..<h {
                try meter.advance(by: w + found.count)
                // Run lengths of the row; runs alternate, so a run's colour follows from the first.
                starts.removeAll(keepingCapacity: true)
                lengths.removeAll(keepingCapacity: true)
                let row = y * w
                let firstDark = px[row] < 128
                var runStart = 0
                for x in 1...w where x == w || (px[row + x] < 128) != (px[row + x - 1] < 128) {
                    starts.append(runStart)
                    lengths.append(x - runStart)
                    runStart = x
                }
                guard lengths.count >= 5 else { continue }
                var i = firstDark ? 0 : 1  // index of a dark run
                while i + 4 < lengths.count {
                    let r = (lengths[i], lengths[i + 1], lengths[i + 2], lengths[i + 3], lengths[i + 4])
                    if matches(r, tolerance: (3, 5)), let f = confirm(px, w: w, h: h, runs: r, endX: starts[i + 4] + lengths[i + 4], y: y) {
                        merge(f, into: &found)
                    }
                    i += 2
                }
            }
        }
        return Array(found.filter { $0.hits >= 2 }.sorted { $0.hits > $1.hits }.prefix(limit))
    }

    /// Five runs, dark first, in the proportions 1:1:3:1:1, each within `tolerance` of a module
    /// (three for the middle run), tolerance being `tolerance.0 / tolerance.1`. In integers and
    /// runs as a tuple: this is asked at every dark run's end of every scanned row.
    static func matches(_ r: (Int, Int, Int, Int, Int), tolerance: (Int, Int)) -> Bool {
        let total = r.0 + r.1 + r.2 + r.3 + r.4
        guard total >= 7 else { return false }
        // |r - total/7| < total/7 * tolerance, times 7 and the tolerance's denominator.
        let limit = tolerance.0 * total, scale = tolerance.1
        return abs(7 * r.0 - total) * scale < limit && abs(7 * r.1 - total) * scale < limit && abs(7 * r.3 - total) * scale < limit
            && abs(7 * r.4 - total) * scale < limit && abs(7 * r.2 - 3 * total) * scale < 3 * limit
    }

    /// Checks the vertical runs through the horizontal centre; returns the refined centre.
    private static func confirm(_ px: UnsafeBufferPointer<UInt8>, w: Int, h: Int, runs: (Int, Int, Int, Int, Int), endX: Int, y: Int) -> Finder? {
        let total = runs.0 + runs.1 + runs.2 + runs.3 + runs.4
        let cx = endX - runs.4 - runs.3 - runs.2 / 2 - 1
        guard cx >= 0, cx < w else { return nil }
        guard let down = crossCheck(from: y, count: h, total: total, tolerance: (3, 5), dark: { px[$0 * w + cx] < 128 }) else { return nil }
        // Half a pixel above and left of the runs' middle, both ways: the positions the rectifier's
        // warps were measured with.
        return Finder(x: Double(cx) + 0.5, y: down.centre - 0.5, module: Double(total + down.total) / 14, hits: 1)
    }

    /// The finder's runs through `start` along a line of `count` pixels (`dark(i)` for pixel i),
    /// out from the dark centre: the centre of the pattern (in pixel coordinates, the middle of its
    /// middle run) and its length, when the runs are in a finder's proportions and its length is
    /// within a factor of three of `total`, the length across (perspective may squash one
    /// direction, but not beyond that). Each run is followed at most `total` pixels.
    @inline(__always)
    static func crossCheck(from start: Int, count: Int, total: Int, tolerance: (Int, Int), dark: (Int) -> Bool) -> (centre: Double, total: Int)? {
        guard start >= 0, start < count, dark(start) else { return nil }
        var back = (0, 0, 0), ahead = (0, 0, 0)
        var i = start
        while i >= 0 && dark(i) && back.0 <= total { back.0 += 1; i -= 1 }
        while i >= 0 && !dark(i) && back.1 <= total { back.1 += 1; i -= 1 }
        while i >= 0 && dark(i) && back.2 <= total { back.2 += 1; i -= 1 }
        i = start + 1
        while i < count && dark(i) && ahead.0 <= total { ahead.0 += 1; i += 1 }
        while i < count && !dark(i) && ahead.1 <= total { ahead.1 += 1; i += 1 }
        while i < count && dark(i) && ahead.2 <= total { ahead.2 += 1; i += 1 }
        let runs = (back.2, back.1, back.0 + ahead.0, ahead.1, ahead.2)
        guard runs.0 > 0, runs.1 > 0, runs.3 > 0, runs.4 > 0, matches(runs, tolerance: tolerance) else { return nil }
        let across = runs.0 + runs.1 + runs.2 + runs.3 + runs.4
        guard across * 3 > total, total * 3 > across else { return nil }
        return (Double(start - back.0 + 1) + Double(runs.2) / 2, across)
    }

    /// Counts `f` as another hit of a finder found within two modules of it, else adds it (while
    /// fewer than `capacity` are found: a noisy image must not grow the list without bound).
    static func merge(_ f: Finder, into found: inout [Finder], capacity: Int = .max) {
        for i in found.indices {
            let g = found[i]
            if abs(g.x - f.x) <= g.module * 2 && abs(g.y - f.y) <= g.module * 2 {
                let n = Double(g.hits)
                found[i] = Finder(x: (g.x * n + f.x) / (n + 1), y: (g.y * n + f.y) / (n + 1),
                                  module: (g.module * n + f.module) / (n + 1), hits: g.hits + 1)
                return
            }
        }
        if found.count < capacity { found.append(f) }
    }
}
