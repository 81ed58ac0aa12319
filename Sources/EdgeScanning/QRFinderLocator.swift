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
                    let window = Array(lengths[i..<(i + 5)])
                    if matches(window), let f = confirm(px, w: w, h: h, runs: window, endX: starts[i + 4] + lengths[i + 4], y: y) {
                        merge(f, into: &found)
                    }
                    i += 2
                }
            }
        }
        return Array(found.filter { $0.hits >= 2 }.sorted { $0.hits > $1.hits }.prefix(limit))
    }

    private static func matches(_ r: [Int]) -> Bool {
        let total = r.reduce(0, +)
        guard total >= 7 else { return false }
        let m = Double(total) / 7
        let tol = m * 0.6
        return abs(Double(r[0]) - m) < tol && abs(Double(r[1]) - m) < tol && abs(Double(r[3]) - m) < tol
            && abs(Double(r[4]) - m) < tol && abs(Double(r[2]) - 3 * m) < 3 * tol
    }

    /// Checks the vertical runs through the horizontal centre; returns the refined centre.
    private static func confirm(_ px: UnsafeBufferPointer<UInt8>, w: Int, h: Int, runs: [Int], endX: Int, y: Int) -> Finder? {
        let total = runs.reduce(0, +)
        let cx = endX - runs[4] - runs[3] - runs[2] / 2 - 1
        guard cx >= 0, cx < w else { return nil }
        func dark(_ yy: Int) -> Bool { px[yy * w + cx] < 128 }
        guard dark(y) else { return nil }
        // Walk up and down through: centre dark, light, dark, (light beyond).
        var up = [0, 0, 0], down = [0, 0, 0]
        var yy = y
        for (i, wantDark) in [true, false, true].enumerated() {
            while yy >= 0 && dark(yy) == wantDark && up[i] <= total { up[i] += 1; yy -= 1 }
        }
        yy = y + 1
        for (i, wantDark) in [true, false, true].enumerated() {
            while yy < h && dark(yy) == wantDark && down[i] <= total { down[i] += 1; yy += 1 }
        }
        let vr = [up[2], up[1], up[0] + down[0], down[1], down[2]]
        guard vr.allSatisfy({ $0 > 0 }), matches(vr) else { return nil }
        let vTotal = vr.reduce(0, +)
        // Perspective may squash one direction, but not beyond a factor of three.
        guard vTotal * 3 > total, total * 3 > vTotal else { return nil }
        let cy = Double(y - up[0]) + Double(up[0] + down[0]) / 2 + 0.5
        return Finder(x: Double(cx) + 0.5, y: cy, module: Double(total + vTotal) / 14, hits: 1)
    }

    private static func merge(_ f: Finder, into found: inout [Finder]) {
        for i in found.indices {
            let g = found[i]
            if abs(g.x - f.x) <= g.module * 2 && abs(g.y - f.y) <= g.module * 2 {
                let n = Double(g.hits)
                found[i] = Finder(x: (g.x * n + f.x) / (n + 1), y: (g.y * n + f.y) / (n + 1),
                                  module: (g.module * n + f.module) / (n + 1), hits: g.hits + 1)
                return
            }
        }
        found.append(f)
    }
}
