import EdgeImaging

/// Maps a point found in a pass's transformed image back to the caller's image coordinates.
struct PointMap: Sendable {
    enum Piece: Sendable {
        /// Multiply by this factor (a downscale by 2 maps back with 2).
        case scale(Double)
        case rotation(RotationGeometry)
        /// Add these to the coordinates (a pad of m maps back with -m, a crop at x, y with x, y).
        case translate(Int, Int)
        case homography(Homography)
    }

    /// Applied last-first: the innermost transform is undone first.
    private var pieces: [Piece]

    static let identity = PointMap(pieces: [])

    /// This map, extended by a later transform whose inverse is `piece`.
    func after(_ piece: Piece) -> PointMap { PointMap(pieces: pieces + [piece]) }

    /// This map followed by all of `later`'s pieces.
    func appending(_ later: PointMap) -> PointMap { PointMap(pieces: pieces + later.pieces) }

    func callAsFunction(_ x: Int, _ y: Int) -> ScanPoint {
        let p = point(Double(x), Double(y))
        return ScanPoint(x: Int(p.x.rounded()), y: Int(p.y.rounded()))
    }

    /// The source position of (x, y), unrounded.
    func point(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        var px = x, py = y
        for piece in pieces.reversed() {
            switch piece {
            case .scale(let f):
                px *= f; py *= f
            case .translate(let dx, let dy):
                px += Double(dx); py += Double(dy)
            case .homography(let h):
                (px, py) = h.apply(px, py)
            case .rotation(let g):
                (px, py) = g.sourcePoint(x: px, y: py)
            }
        }
        return (px, py)
    }
}
