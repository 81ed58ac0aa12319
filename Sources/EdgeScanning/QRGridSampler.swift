import EdgeImaging

/// Samples a large QR code's modules by following its alignment patterns, for codes on a bent
/// surface, where one homography from the finder patterns puts the modules between them a module
/// or more off (qrcode-2/high-res-1.jpg of the development photos: a version-34 code at 2 px per
/// module on paper whose top edge sags by about 8 modules; the rectifier's warps gave no format
/// information at all).
///
/// From version 7 on, a code carries alignment patterns on a grid 20-28 modules apart. Each grid
/// node is searched for within 2.5 modules of where its neighbours put it (the finder patterns'
/// affine map for the first), by normalised correlation with the 5 x 5 pattern; nodes not found
/// in that sweep (0.7 or more) are searched again from found neighbours on any side, so a sag
/// between two finders is followed from both ends. The three nodes under the finder patterns
/// come from each finder's centre and its two neighbouring nodes. Modules are sampled by bilinear
/// interpolation between the four nodes around them and split dark/light against the mean of the
/// 11 x 11 modules around each (the light falls off across a large photographed code).
///
/// What it returns is only a grid: `QRModuleDecoder` then requires the format and version
/// information and every Reed-Solomon block to check, as for the rectifier's grids.
struct QRGridSampler {
    /// Correlation with the alignment pattern that counts as found.
    static let found = 0.7

    let view: ImageView
    /// Finder centres: top-left, top-right, bottom-left, in source pixels.
    let corner: (x: Double, y: Double), right: (x: Double, y: Double), down: (x: Double, y: Double)
    let dimension: Int

    /// The module grid, or nil when too few alignment patterns were found to follow the code (a
    /// node not found keeps its prediction; more than a quarter unfound means the grid is not
    /// this code's) or the budget's deadline passed.
    func modules(budget: WorkBudget) -> (grid: QRModuleDecoder, nodes: Nodes)? {
        guard let nodes = nodes(budget: budget) else { return nil }
        let n = dimension
        var samples = [Double](repeating: 0, count: n * n)
        for my in 0..<n {
            for mx in 0..<n {
                let p = nodes.position(Double(mx) + 0.5, Double(my) + 0.5)
                samples[my * n + mx] = sample(p.x, p.y)
            }
        }
        // Dark against the mean of the 11 x 11 modules around (clamped at the edges), from a
        // summed-area table.
        var table = [Double](repeating: 0, count: (n + 1) * (n + 1))
        for y in 0..<n {
            var row = 0.0
            for x in 0..<n {
                row += samples[y * n + x]
                table[(y + 1) * (n + 1) + x + 1] = table[y * (n + 1) + x + 1] + row
            }
        }
        var dark = [Bool](repeating: false, count: n * n)
        for y in 0..<n {
            let y0 = max(0, y - 5), y1 = min(n, y + 6)
            for x in 0..<n {
                let x0 = max(0, x - 5), x1 = min(n, x + 6)
                let sum = table[y1 * (n + 1) + x1] - table[y0 * (n + 1) + x1] - table[y1 * (n + 1) + x0] + table[y0 * (n + 1) + x0]
                dark[y * n + x] = samples[y * n + x] < sum / Double((y1 - y0) * (x1 - x0))
            }
        }
        return QRModuleDecoder(dimension: n, modules: dark).map { ($0, nodes) }
    }

    /// The found (or predicted) source position of every alignment grid node.
    struct Nodes {
        /// Module coordinates of the node lines (the first is 6.5: the finder rows' nodes).
        let lines: [Double]
        /// Row-major by (column line, row line): `positions[j * count + i]`.
        let positions: [(x: Double, y: Double)]

        /// Where module coordinates (mx, my) lie in the source: bilinear between the four nodes
        /// around them, extrapolated from the outer cells beyond the first and last lines.
        func position(_ mx: Double, _ my: Double) -> (x: Double, y: Double) {
            let (i, fx) = cell(mx), (j, fy) = cell(my)
            let k = lines.count
            let a = positions[j * k + i], b = positions[j * k + i + 1]
            let c = positions[(j + 1) * k + i], d = positions[(j + 1) * k + i + 1]
            let top = (x: a.x + (b.x - a.x) * fx, y: a.y + (b.y - a.y) * fx)
            let bottom = (x: c.x + (d.x - c.x) * fx, y: c.y + (d.y - c.y) * fx)
            return (top.x + (bottom.x - top.x) * fy, top.y + (bottom.y - top.y) * fy)
        }

        private func cell(_ t: Double) -> (Int, Double) {
            var i = 0
            while i < lines.count - 2 && t > lines[i + 1] { i += 1 }
            return (i, (t - lines[i]) / (lines[i + 1] - lines[i]))
        }
    }

    func nodes(budget: WorkBudget) -> Nodes? {
        let version = (dimension - 17) / 4
        guard version >= 7 else { return nil }
        let centres = QRModuleDecoder.alignmentCentres(dimension: dimension)
        let k = centres.count
        let lines = centres.map { Double($0) + 0.5 }
        let span = Double(dimension - 7)
        // One module along the code's rows and columns, from the finder centres (affine).
        let u = ((right.x - corner.x) / span, (right.y - corner.y) / span)
        let v = ((down.x - corner.x) / span, (down.y - corner.y) / span)
        func affine(_ mx: Double, _ my: Double) -> (x: Double, y: Double) {
            (corner.x + (mx - 3.5) * u.0 + (my - 3.5) * v.0, corner.y + (mx - 3.5) * u.1 + (my - 3.5) * v.1)
        }
        let cornerNodes: Set<Int> = [0, k - 1, (k - 1) * k]
        var positions = (0..<(k * k)).map { affine(lines[$0 % k], lines[$0 / k]) }
        var isFound = [Bool](repeating: false, count: k * k)
        func at(_ i: Int, _ j: Int) -> Int? { i >= 0 && j >= 0 && i < k && j < k ? j * k + i : nil }

        // First sweep, outward from the top-left: predicted from the nodes before it (found or
        // not), with the module axes those give.
        var known = (0..<(k * k)).map { cornerNodes.contains($0) }
        let order = (0..<(k * k)).filter { !cornerNodes.contains($0) }.sorted { ($0 % k + $0 / k, $0) < ($1 % k + $1 / k, $1) }
        for index in order {
            guard (try? budget.checkTime(for: "rectify: following alignment patterns")) != nil else { return nil }
            let i = index % k, j = index / k
            var predictions: [(x: Double, y: Double)] = []
            for (di, dj) in [(1, 0), (0, 1)] {
                if let a = at(i - di, j - dj), let b = at(i - 2 * di, j - 2 * dj), known[a], known[b] {
                    predictions.append((2 * positions[a].x - positions[b].x, 2 * positions[a].y - positions[b].y))
                }
            }
            if let a = at(i - 1, j), let c = at(i, j - 1), let d = at(i - 1, j - 1), known[a], known[c], known[d] {
                predictions.append((positions[a].x + positions[c].x - positions[d].x, positions[a].y + positions[c].y - positions[d].y))
            }
            if predictions.isEmpty, let nearest = (0..<(k * k)).filter({ known[$0] }).min(by: {
                abs($0 % k - i) + abs($0 / k - j) < abs($1 % k - i) + abs($1 / k - j)
            }) {
                // The affine map, moved by the offset the nearest known node showed.
                let p = affine(lines[i], lines[j]), q = affine(lines[nearest % k], lines[nearest / k])
                predictions.append((p.x + positions[nearest].x - q.x, p.y + positions[nearest].y - q.y))
            }
            let guess = predictions.isEmpty ? positions[index] : mean(predictions)
            var localU = u, localV = v
            if let a = at(i - 1, j), known[a] {
                let m = lines[i] - lines[i - 1]
                localU = ((guess.x - positions[a].x) / m, (guess.y - positions[a].y) / m)
            }
            if let c = at(i, j - 1), known[c] {
                let m = lines[j] - lines[j - 1]
                localV = ((guess.x - positions[c].x) / m, (guess.y - positions[c].y) / m)
            }
            positions[index] = guess
            known[index] = true
            if let hit = search(around: guess, u: localU, v: localV, radius: 2.5) {
                positions[index] = hit
                isFound[index] = true
            }
        }
        // Then the nodes still missing, predicted from found neighbours on every side.
        for _ in 0..<3 {
            for index in order where !isFound[index] {
                guard (try? budget.checkTime(for: "rectify: following alignment patterns")) != nil else { return nil }
                let i = index % k, j = index / k
                var predictions: [(x: Double, y: Double)] = []
                for (di, dj) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    if let a = at(i + di, j + dj), let b = at(i + 2 * di, j + 2 * dj), isFound[a], isFound[b] {
                        predictions.append((2 * positions[a].x - positions[b].x, 2 * positions[a].y - positions[b].y))
                    }
                }
                for (di, dj) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
                    if let a = at(i + di, j), let c = at(i, j + dj), let d = at(i + di, j + dj), isFound[a], isFound[c], isFound[d] {
                        predictions.append((positions[a].x + positions[c].x - positions[d].x, positions[a].y + positions[c].y - positions[d].y))
                    }
                }
                guard !predictions.isEmpty else { continue }
                let guess = mean(predictions)
                positions[index] = guess
                if let hit = search(around: guess, u: u, v: v, radius: 3) {
                    positions[index] = hit
                    isFound[index] = true
                }
            }
        }
        guard 4 * order.filter({ !isFound[$0] }).count <= order.count else { return nil }
        // The nodes under the finder patterns: from the finder centre and its two neighbouring
        // nodes, which fix the local module axes.
        let finderNodes: [(node: Int, along: Int, across: Int, centre: (x: Double, y: Double), at: (Double, Double))] = [
            (0, 1, k, corner, (3.5, 3.5)),
            (k - 1, k - 2, 2 * k - 1, right, (Double(dimension) - 3.5, 3.5)),
            ((k - 1) * k, (k - 1) * k + 1, (k - 2) * k, down, (3.5, Double(dimension) - 3.5)),
        ]
        for f in finderNodes where isFound[f.along] && isFound[f.across] {
            let m1 = (lines[f.along % k] - f.at.0, lines[f.along / k] - f.at.1)
            let m2 = (lines[f.across % k] - f.at.0, lines[f.across / k] - f.at.1)
            let det = m1.0 * m2.1 - m2.0 * m1.1
            guard abs(det) > 1e-9 else { continue }
            let y1 = (positions[f.along].x - f.centre.x, positions[f.along].y - f.centre.y)
            let y2 = (positions[f.across].x - f.centre.x, positions[f.across].y - f.centre.y)
            // J maps module offsets to pixel offsets: J [m1 m2] = [y1 y2].
            let colU = ((y1.0 * m2.1 - y2.0 * m1.1) / det, (y1.1 * m2.1 - y2.1 * m1.1) / det)
            let colV = ((y2.0 * m1.0 - y1.0 * m2.0) / det, (y2.1 * m1.0 - y1.1 * m2.0) / det)
            let d = (lines[f.node % k] - f.at.0, lines[f.node / k] - f.at.1)
            positions[f.node] = (f.centre.x + colU.0 * d.0 + colV.0 * d.1, f.centre.y + colU.1 * d.0 + colV.1 * d.1)
        }
        return Nodes(lines: lines, positions: positions)
    }

    private func mean(_ points: [(x: Double, y: Double)]) -> (x: Double, y: Double) {
        let n = Double(points.count)
        return (points.map(\.x).reduce(0, +) / n, points.map(\.y).reduce(0, +) / n)
    }

    /// The best match of the alignment pattern within `radius` modules of `guess`, in quarter
    /// modules, when its correlation reaches `found`.
    private func search(around guess: (x: Double, y: Double), u: (Double, Double), v: (Double, Double), radius: Double) -> (x: Double, y: Double)? {
        var best = (score: -2.0, point: guess)
        let steps = Int(radius * 4)
        for sy in -steps...steps {
            for sx in -steps...steps {
                let dx = Double(sx) / 4, dy = Double(sy) / 4
                let p = (x: guess.x + dx * u.0 + dy * v.0, y: guess.y + dx * u.1 + dy * v.1)
                let score = correlation(at: p, u: u, v: v)
                if score > best.score { best = (score, p) }
            }
        }
        return best.score >= Self.found ? best.point : nil
    }

    /// Normalised correlation of the 5 x 5 modules around `p` with the alignment pattern (dark
    /// ring, light ring, dark centre), from running sums (no arrays: the direct reader's search
    /// asks this a few hundred times a code).
    private func correlation(at p: (x: Double, y: Double), u: (Double, Double), v: (Double, Double)) -> Double {
        // Weights: +1 on the light ring (8 modules), -1 on the rest (17).
        var sum = 0.0, squares = 0.0, weighted = 0.0
        for b in -2...2 {
            for a in -2...2 {
                let value = sample(p.x + Double(a) * u.0 + Double(b) * v.0, p.y + Double(a) * u.1 + Double(b) * v.1)
                sum += value
                squares += value * value
                weighted += max(abs(a), abs(b)) == 1 ? value : -value
            }
        }
        // With m the weights' mean (-9/25): cross = sum(v w) - m sum(v); the weights' spread is
        // 25 - 25 m^2; the values' is sum(v^2) - sum(v)^2 / 25.
        // A flat patch (spread 0, give or take rounding) correlates with nothing.
        let m = -9.0 / 25
        let spread = squares - sum * sum / 25
        guard spread > 1e-6 else { return 0 }
        return (weighted - m * sum) / (spread * (25 - 25 * m * m)).squareRoot()
    }

    /// Bilinear sample at a pixel-centre coordinate; white outside the image.
    private func sample(_ x: Double, _ y: Double) -> Double {
        let sx = x - 0.5, sy = y - 0.5
        guard sx >= 0, sy >= 0, sx < Double(view.width - 1), sy < Double(view.height - 1) else { return 255 }
        let x0 = Int(sx), y0 = Int(sy)
        let fx = sx - Double(x0), fy = sy - Double(y0)
        let i = y0 * view.rowStride + x0
        let p = view.pixels
        let top = Double(p[i]) + (Double(p[i + 1]) - Double(p[i])) * fx
        let bottom = Double(p[i + view.rowStride]) + (Double(p[i + view.rowStride + 1]) - Double(p[i + view.rowStride])) * fx
        return top + (bottom - top) * fy
    }
}
