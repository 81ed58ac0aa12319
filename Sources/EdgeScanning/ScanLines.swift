import EdgeImaging

/// Which of zbar's scan lines a scan uses (ZBAR_CFG_Y_DENSITY for rows, ZBAR_CFG_X_DENSITY for
/// columns). A 1D code with upright bars is read along rows alone, at half the cost of both.
enum ScanLines: Sendable, Equatable {
    case both
    case rows
    case columns

    /// The scan lines that cross the bars of a 1D code in `view`, judged from the whole image's
    /// edges: `.rows` when nearly all strong edges are vertical (upright bars), `.columns` when
    /// nearly all are horizontal (bars lying down), `.both` otherwise.
    ///
    /// An edge counts when its central difference is over 24 grey levels and more than twice the
    /// one across it, which holds for bars up to about 25 degrees off upright: zbar reads such a
    /// code along rows. One direction is chosen when it has at least 16 edges and more than 3
    /// times the other's; text, QR codes, clutter and codes near 45 degrees give both directions
    /// and keep `.both`.
    /// Decision: the still-image plan's first pass uses it when no QR is requested (QR finder
    /// patterns need both directions). A wrong call costs that pass only: the full pass after
    /// it scans both ways.
    /// It samples every third row and second column, and on large images about 256 rows and
    /// 512 columns.
    static func acrossBars(in view: ImageView) -> ScanLines {
        guard view.width >= 8, view.height >= 8 else { return .both }
        let (vertical, horizontal) = edgeCounts(in: view)
        if vertical >= 16 && vertical > 3 * horizontal { return .rows }
        if horizontal >= 16 && horizontal > 3 * vertical { return .columns }
        return .both
    }

    /// The strong upright and lying edges `acrossBars` counts at its samples.
    static func edgeCounts(in view: ImageView) -> (vertical: Int, horizontal: Int) {
        let w = view.width, h = view.height, stride = view.rowStride
        let rowStep = max(3, h / 256), columnStep = max(2, w / 512)
        var vertical = 0, horizontal = 0
        guard w >= 3, h >= 3, let pixels = view.pixels.baseAddress else { return (0, 0) }
        // This ran before every 1D photo's first scan at a fifth of zbar's cost, so with every
        // second column 16 columns are compared at once (the samples at even lanes); unchecked
        // reads: every index is within rows 0..<h and columns 0..<w.
        let vectors = columnStep == 2 ? max(0, (w - 2) / 16) : 0
        for y in Swift.stride(from: 1, to: h - 1, by: rowStep) {
            let row = pixels + y * stride, above = row - stride, below = row + stride
            for k in 0..<vectors {
                let x = 1 + 16 * k  // columns x..<x+16; reads x-1 ... x+16 <= w-1
                let counts = edgeCounts(left: row + x - 1, right: row + x + 1, up: above + x, down: below + x)
                vertical &+= counts.vertical
                horizontal &+= counts.horizontal
            }
            for x in Swift.stride(from: 1 + 16 * vectors, to: w - 1, by: columnStep) {
                let dx = abs(Int(row[x &+ 1]) &- Int(row[x &- 1]))
                let dy = abs(Int(below[x]) &- Int(above[x]))
                vertical &+= (dx > 24 && dx > 2 &* dy) ? 1 : 0
                horizontal &+= (dy > 24 && dy > 2 &* dx) ? 1 : 0
            }
        }
        return (vertical, horizontal)
    }

    /// The upright and lying edges among the even lanes of 16 columns: `left` and `right` the
    /// pixels either side of each, `up` and `down` above and below. The scalar test, `dx > 24 &&
    /// dx > 2 dy`, in bytes: `2 dy < dx` is `dy <= (dx - 1) / 2`. Only selects, wrapping
    /// subtractions, shifts and masks: single SSE2 instructions.
    @inline(__always)
    private static func edgeCounts(left: UnsafePointer<UInt8>, right: UnsafePointer<UInt8>, up: UnsafePointer<UInt8>,
                                   down: UnsafePointer<UInt8>) -> (vertical: Int, horizontal: Int) {
        func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> { UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self) }
        func difference(_ a: SIMD16<UInt8>, _ b: SIMD16<UInt8>) -> SIMD16<UInt8> {
            a.replacing(with: b, where: b .> a) &- a.replacing(with: b, where: b .< a)
        }
        let dx = difference(load(right), load(left)), dy = difference(load(down), load(up))
        let limit = SIMD16<UInt8>(repeating: 24), one = SIMD16<UInt8>(repeating: 1)
        let upright = (dx .> limit) .& (dy .<= (dx &- one) &>> one)
        let lying = (dy .> limit) .& (dx .<= (dy &- one) &>> one)
        // The low bit of each even byte.
        let even = SIMD2<UInt64>(repeating: 0x0001_0001_0001_0001)
        let u = unsafeBitCast(upright, to: SIMD2<UInt64>.self) & even, l = unsafeBitCast(lying, to: SIMD2<UInt64>.self) & even
        return (u[0].nonzeroBitCount + u[1].nonzeroBitCount, l[0].nonzeroBitCount + l[1].nonzeroBitCount)
    }
}
