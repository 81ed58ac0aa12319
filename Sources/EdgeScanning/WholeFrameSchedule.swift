import EdgeImaging

/// When the camera preset scans the whole frame after a regions pass that read nothing
/// (`ReaderOptions.wholeFrameInterval`): at once when the scene changed (something entered the
/// view), else on the frame nearest to the interval after the last such scan, or to
/// `stillFactor` intervals when nothing in view has moved since that scan. One per reader: it
/// keeps the frame history of one camera.
struct WholeFrameSchedule {
    /// What the schedule needs to know of one frame.
    struct Frame {
        let arrival: ContinuousClock.Instant
        /// The time since the previous read started: the camera's frame period.
        let gap: Duration
        let sceneChanged: Bool
        /// The frame's coarse picture; nil when the reader does not watch the scene.
        let scene: SceneSignature?
    }

    /// Decision (issue #32): a whole-frame pass that read nothing is repeated after 5 of its
    /// intervals (the shrunk scan every second, the full one every 5 s) while the view is still
    /// since it ran (`SceneSignature.isStill`), after one interval as soon as anything moved. The
    /// same pixels scanned again give the same answer; a code can only come into view by moving,
    /// and a code that moves in changes the picture (a creeping one is compared with the picture
    /// at the last scan, so its small steps add up), so its time to first read is unchanged. Only
    /// a change the 32x18 picture cannot show (a faint code appearing in place: the unit tests'
    /// contrast-14 code) waits up to 5 intervals. The periodic scans were most of an idle QR
    /// camera's time (0.75 of 1.61 ms a frame on the Benchmarks' empty frame).
    static let stillFactor = 5

    /// When each whole-frame pass last ran after an empty regions pass (the camera preset has a
    /// shrunk one and a full-resolution one, each on its own interval), and the picture it saw.
    private var lastRun: [ScanPass: (at: ContinuousClock.Instant, scene: SceneSignature?)] = [:]
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
        var scene: SceneSignature? = nil
        if watchingScene {
            let signature = SceneSignature(view)
            sceneChanged = lastScene.map { signature.differs(from: $0) } ?? true
            lastScene = signature
            scene = signature
        }
        return Frame(arrival: arrival, gap: gap, sceneChanged: sceneChanged, scene: scene)
    }

    /// Whether the whole-frame pass `pass` runs on `frame`; it is recorded as run when it does.
    /// Rounding to the nearest frame (half a frame gap early) keeps a camera at `1 / interval`
    /// fps, whose frames come a millisecond early as often as late, scanning every frame, and
    /// 30 fps every sixth.
    mutating func due(_ pass: ScanPass, on frame: Frame, interval: Duration) -> Bool {
        if !frame.sceneChanged, let last = lastRun[pass] {
            let still = frame.scene.flatMap { now in last.scene.map { now.isStill(since: $0) } } ?? false
            if frame.arrival - last.at + frame.gap / 2 < (still ? interval * Self.stillFactor : interval) { return false }
        }
        lastRun[pass] = (frame.arrival, frame.scene)
        return true
    }
}

/// A frame at a glance, to tell a camera's idle view from one that changed: the mean of 16
/// sparse samples in each cell of a 32x18 grid (about 9,000 pixel reads on any frame size).
///
/// Decision: a scene changed when its size changed or more than 1 cell in 50 moved by more than
/// 24 grey levels. Sensor noise averages out in a cell's mean, and a gradual exposure change moves
/// every cell a little per frame, so an idle camera keeps its whole-frame scan to the interval
/// (or to `WholeFrameSchedule.stillFactor` intervals while `isStill`);
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
        return cellsMoved(since: other, by: 24) * 50 > cells.count
    }

    /// Whether nothing in view moved since `reference`: at most one cell's mean moved by more
    /// than 12 grey levels. Decision: a cell's mean of 16 samples has a sixteenth of the sensor
    /// noise's variance (uniform noise of +-12 levels, far more than a lit camera's, moves it by
    /// 1.7 levels: 12 is 4.9 sigma of the difference of two such frames), while anything that
    /// enters, a hand, a box, a label, moves several cells by tens of levels.
    func isStill(since reference: SceneSignature) -> Bool {
        width == reference.width && height == reference.height && cellsMoved(since: reference, by: 12) <= 1
    }

    private func cellsMoved(since other: SceneSignature, by levels: Int) -> Int {
        var moved = 0
        for (a, b) in zip(cells, other.cells) where abs(Int(a) - Int(b)) > levels { moved += 1 }
        return moved
    }
}
