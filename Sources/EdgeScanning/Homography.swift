/// A plane-to-plane projective map (3x3, h33 = 1), fitted to four point pairs.
struct Homography: Sendable {
    /// Row-major h11..h32, in a vector: `apply` runs per module of a grid, where an array's
    /// bounds checks showed.
    private let h: SIMD8<Double>

    /// The map taking each `from[i]` to `to[i]`; nil when the points are degenerate (collinear).
    init?(from: [(x: Double, y: Double)], to: [(x: Double, y: Double)]) {
        guard from.count == 4, to.count == 4 else { return nil }
        // Two linear equations per pair in the eight unknowns.
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y) = from[i], (u, v) = to[i]
            a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..<8 {
            guard let pivot = (col..<8).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            for row in 0..<8 where row != col {
                let f = a[row][col] / a[col][col]
                if f == 0 { continue }
                for k in col..<9 { a[row][k] -= f * a[col][k] }
            }
        }
        h = SIMD8((0..<8).map { a[$0][8] / a[$0][$0] })
    }

    /// The images of `start`, `start + (step, 0)`, `start + (2 step, 0)`, ... in turn: the
    /// numerators and denominator advance by one addition each, one division per point.
    func line(from start: (x: Double, y: Double), step: Double) -> Line {
        Line(x: h[0] * start.x + h[1] * start.y + h[2], y: h[3] * start.x + h[4] * start.y + h[5],
             w: h[6] * start.x + h[7] * start.y + 1, dx: h[0] * step, dy: h[3] * step, dw: h[6] * step)
    }

    struct Line {
        var x, y, w: Double
        let dx, dy, dw: Double

        mutating func next() -> (x: Double, y: Double) {
            let scale = 1 / w
            defer { x += dx; y += dy; w += dw }
            return (x * scale, y * scale)
        }
    }

    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = h[6] * x + h[7] * y + 1
        return ((h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w)
    }
}
