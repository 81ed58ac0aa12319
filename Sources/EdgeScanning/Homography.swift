/// A plane-to-plane projective map (3x3, h33 = 1), fitted to four point pairs.
struct Homography: Sendable {
    private let h: [Double]  // row-major h11..h32

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
        h = (0..<8).map { a[$0][8] / a[$0][$0] }
    }

    func apply(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = h[6] * x + h[7] * y + 1
        return ((h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w)
    }
}
