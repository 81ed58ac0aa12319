import EdgeImaging

/// When the camera preset scans the whole frame after a regions pass that read nothing
/// (`ReaderOptions.wholeFrameInterval`): at once when the scene changed (something entered the
/// view), else on the frame nearest to the interval after the last such scan. One per reader:
/// it keeps the frame history of one camera.
struct WholeFrameSchedule {
    /// What the schedule needs to know of one frame.
    struct Frame {
        let arrival: ContinuousClock.Instant
        /// The time since the previous read started: the camera's frame period.
        let gap: Duration
        let sceneChanged: Bool
    }

    /// When each whole-frame pass last ran after an empty regions pass (the camera preset has a
    /// shrunk one and a full-resolution one, each on its own interval).
    private var lastRun: [ScanPass: ContinuousClock.Instant] = [:]
    /// When the previous read started.
    private var lastRead: ContinuousClock.Instant?
    /// The previous frame's coarse picture, to see a scene change.
    private var lastScene: SceneSignature?

    /// Notes a read of `view` starting at `arrival`; the scene is compared only when
    /// `watchingScene` (a reader without an interval skips the cost of its signature).
    mutating func arrived(_ view: ImageView, at arrival: ContinuousClock.Instant, watchingScene: Bool) -> Frame {
        let gap = lastRead.map { arrival - $0 } ?? .zero
        lastRead = arrival
        var sceneChanged = true
        if watchingScene {
            let scene = SceneSignature(view)
            sceneChanged = lastScene.map { scene.differs(from: $0) } ?? true
            lastScene = scene
        }
        return Frame(arrival: arrival, gap: gap, sceneChanged: sceneChanged)
    }

    /// Whether the whole-frame pass `pass` runs on `frame`; it is recorded as run when it does.
    /// Rounding to the nearest frame (half a frame gap early) keeps a camera at `1 / interval`
    /// fps, whose frames come a millisecond early as often as late, scanning every frame, and
    /// 30 fps every sixth.
    mutating func due(_ pass: ScanPass, on frame: Frame, interval: Duration) -> Bool {
        if !frame.sceneChanged, let last = lastRun[pass], frame.arrival - last + frame.gap / 2 < interval { return false }
        lastRun[pass] = frame.arrival
        return true
    }
}

/// A frame at a glance, to tell a camera's idle view from one that changed: the mean of 16
/// sparse samples in each cell of a 32x18 grid (about 9,000 pixel reads on any frame size).
///
/// Decision: a scene changed when its size changed or more than 1 cell in 50 moved by more than
/// 24 grey levels. Sensor noise averages out in a cell's mean, and a gradual exposure change moves
/// every cell a little per frame, so an idle camera keeps its whole-frame scan to the interval;
/// a label held up covers many 40x40 px cells at once (a 232 px QR about 30) and is scanned in
/// the frame it appears. While something moves in view every frame counts as changed, which
/// costs what the preset cost before the interval existed, only for as long as the movement.
struct SceneSignature: Equatable {
    static let columns = 32, rows = 18, samplesPerSide = 4
    let width: Int
    let height: Int
    let cells: [UInt8]

    init(_ view: ImageView) {
        width = view.width
        height = view.height
        var cells = [UInt8](repeating: 0, count: Self.columns * Self.rows)
        if view.width >= Self.columns && view.height >= Self.rows {
            let cellWidth = view.width / Self.columns, cellHeight = view.height / Self.rows
            let n = Self.samplesPerSide
            for row in 0..<Self.rows {
                for column in 0..<Self.columns {
                    var sum = 0
                    for sy in 0..<n {
                        let y = row * cellHeight + (2 * sy + 1) * cellHeight / (2 * n)
                        let base = y * view.rowStride + column * cellWidth
                        for sx in 0..<n { sum += Int(view.pixels[base + (2 * sx + 1) * cellWidth / (2 * n)]) }
                    }
                    cells[row * Self.columns + column] = UInt8(sum / (n * n))
                }
            }
        }
        self.cells = cells
    }

    func differs(from other: SceneSignature) -> Bool {
        guard width == other.width && height == other.height else { return true }
        var moved = 0
        for (a, b) in zip(cells, other.cells) where abs(Int(a) - Int(b)) > 24 { moved += 1 }
        return moved * 50 > cells.count
    }
}
