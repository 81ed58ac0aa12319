import EdgeImaging
@testable import EdgeScanning
import XCTest

/// The region finder on camera-like frames: sensor noise, clutter (boxes, lines, text-like
/// marks) and one code from a real encoder.
final class CodeRegionFinderTests: XCTestCase {
    func testQRInClutterIsOneRegionScannedBothWays() throws {
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "PO-2026-00042").first)
        let (frame, box) = Frame.cluttered(seed: 1, pasting: qr, at: (610, 300))
        let regions = try XCTUnwrap(try frame.withView { try CodeRegionFinder().regions(in: $0) })
        let holding = regions.filter { $0.contains(box) }
        XCTAssertEqual(holding.map(\.lines), [.both], "\(regions)")
        XCTAssertLessThan(regions.reduce(0) { $0 + $1.area }, frame.pixelCount / 4, "regions are a small part of the frame")
        assertInside(regions, frame)
    }

    func testCode128InClutterIsARowsRegion() throws {
        let code = try Encoders.zint(["-b", "20", "--height", "50", "--scale", "2", "--quietzones", "-d", "PO-2026-00042"])
        let (frame, box) = Frame.cluttered(seed: 2, pasting: code, at: (400, 250))
        let regions = try XCTUnwrap(try frame.withView { try CodeRegionFinder().regions(in: $0) })
        XCTAssertEqual(regions.filter { $0.contains(box) }.map(\.lines), [.rows], "\(regions)")
        assertInside(regions, frame)
    }

    /// Issue #32: a reader of QR alone does not scan the regions whose runs lie one way (a 1D
    /// code's); QR finder patterns make runs both ways.
    func testWithoutA1DSymbologyOneWayRegionsAreNotScanned() throws {
        let code = try Encoders.zint(["-b", "20", "--height", "50", "--scale", "2", "--quietzones", "-d", "PO-2026-00042"])
        let (frame, box) = Frame.cluttered(seed: 2, pasting: code, at: (400, 250))
        let pass = ScanPass(region: .regions)
        let all = try frame.withView { try PassImage.inRegions(of: $0, by: pass, budget: .standard) }
        let qrOnly = try frame.withView { try CodeRegionFinder(linear: false).regions(in: $0) } ?? []
        XCTAssertTrue(all.contains { $0.lines == .rows }, "the Code 128's region is scanned for 1D codes")
        XCTAssertEqual(qrOnly.filter { $0.lines != .both }, [])
        XCTAssertFalse(qrOnly.contains { $0.mostlyOverlaps(box) }, "\(qrOnly)")
    }

    /// Issue #32: the finder of a QR-only reader walks its columns at every second row and keeps
    /// only square regions of 4+ cells; a QR code of any module size (2-6 px) at any angle is
    /// read by the QR-only camera preset as, and by the same pass as, the four symbologies' one.
    func testAQROnlyReaderReadsEveryQRCodeTheFourSymbologiesRead() throws {
        var fromRegions = 0
        for module in 2...6 {
            let qr = try XCTUnwrap(Encoders.qrencode(["-s", "\(module)"], "PO-2026-00042").first)
            for (index, angle) in [0.0, 12, 30, 45].enumerated() {
                let turned = angle == 0 ? qr : try qr.withView { try $0.rotated(degrees: angle) }.image
                let (frame, _) = Frame.cluttered(seed: UInt64(20 + 4 * module + index), pasting: turned, at: (300 + 60 * index, 100 + 30 * module))
                let qrOnly = try BarcodeReader(options: .cameraFrame(formats: [.qr])).read(frame)
                let four = try BarcodeReader(options: .cameraFrame()).read(frame)
                XCTAssertEqual(qrOnly.map { $0.text }, four.map { $0.text }, "module \(module) px, \(angle) deg")
                XCTAssertEqual(qrOnly.map { $0.pass }, four.map { $0.pass }, "module \(module) px, \(angle) deg")
                if qrOnly.first?.pass.region == .regions { fromRegions += 1 }
            }
        }
        // The others are read by the whole-frame passes, or by neither preset (2 px modules, and
        // some of 30-45 degrees: issue #32's note).
        XCTAssertGreaterThanOrEqual(fromRegions, 7, "read from their region")
    }

    /// Issue #32: a column sampled at every second row still sees a soft edge (a ramp over
    /// several rows) as one edge, as a line sampled at every row does.
    func testALineSampledEverySecondPixelCountsARampAsOneEdge() {
        let finder = CodeRegionFinder(linear: false)
        for stride in [1, 2] {
            var tracker = CodeRegionFinder.LineTracker(stride: stride)
            for i in Swift.stride(from: 10, through: 16, by: stride) { _ = tracker.sample(40, at: i, finder, threshold: 16) }
            XCTAssertEqual(tracker.edges, 1, "stride \(stride)")
            _ = tracker.sample(-40, at: 16 + stride, finder, threshold: 16)
            _ = tracker.sample(40, at: 16 + 3 * stride, finder, threshold: 16)
            XCTAssertEqual(tracker.edges, 3, "stride \(stride): a flat sample between two of one sign ends the edge")
        }
    }

    func testUprightBarsTurnedSidewaysAreAColumnsRegion() throws {
        let code = try Encoders.zint(["-b", "20", "--height", "50", "--scale", "2", "--quietzones", "-d", "PO-2026-00042"])
        let (turned, _) = try code.withView { try $0.rotated(degrees: 90) }
        let (frame, box) = Frame.cluttered(seed: 3, pasting: turned, at: (500, 20))
        let regions = try XCTUnwrap(try frame.withView { try CodeRegionFinder().regions(in: $0) })
        XCTAssertEqual(regions.filter { $0.contains(box) }.map(\.lines), [.columns], "\(regions)")
    }

    /// Issue #32: rows are read 16 samples at a time where they are flat; that must change
    /// nothing, wherever the codes and the clutter fall against those blocks.
    func testSkippingFlatBlocksFindsWhatEverySampleFinds() throws {
        let code = try Encoders.zint(["-b", "20", "--height", "50", "--scale", "2", "--quietzones", "-d", "PO-2026-00042"])
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "PO-2026-00042").first)
        var sampled = CodeRegionFinder()
        sampled.skipsFlatBlocks = false
        for (seed, x) in [0, 5, 10, 15].map({ (UInt64(10 + $0), 400 + $0) }) {
            for pasted in [code, qr] {
                let (frame, _) = Frame.cluttered(seed: seed, pasting: pasted, at: (x, 200 + Int(seed)))
                // The general finder marks both codes; the QR-only one may mark none (the Code 128).
                XCTAssertNotNil(try frame.withView { try CodeRegionFinder().regions(in: $0) }, "seed \(seed)")
                for linear in [true, false] {
                    sampled.linear = linear
                    let fast = try frame.withView { try CodeRegionFinder(linear: linear).regions(in: $0) }
                    let slow = try frame.withView { try sampled.regions(in: $0) }
                    XCTAssertEqual(fast, slow, "seed \(seed), code at x \(x), linear \(linear)")
                }
            }
        }
    }

    func testNoiseAloneAndFlatFramesHaveNoRegions() {
        XCTAssertNil(try Frame.noise(seed: 4, sigma: 3).withView { try CodeRegionFinder().regions(in: $0) })
        XCTAssertNil(try Frame.noise(seed: 5, sigma: 9).withView { try CodeRegionFinder().regions(in: $0) }, "the threshold follows the noise")
        XCTAssertNil(try GrayImage(width: 1280, height: 720, fill: 128).withView { try CodeRegionFinder().regions(in: $0) })
        XCTAssertNil(try GrayImage(width: 20, height: 20).withView { try CodeRegionFinder().regions(in: $0) })
    }

    func testACodeFillingTheFrameIsLeftToTheWholeFrameScan() throws {
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "3", "-m", "1"], "PO-2026-00042").first)
        XCTAssertNil(try qr.withView { try CodeRegionFinder().regions(in: $0) })
    }

    func testCameraPresetReadsFromTheRegionAndFallsBackToTheWholeFrame() throws {
        let reader = try BarcodeReader(options: .cameraFrame())
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "PO-2026-00042").first)
        let (frame, box) = Frame.cluttered(seed: 6, pasting: qr, at: (300, 200))
        let found = try XCTUnwrap(reader.read(frame).first)
        XCTAssertEqual(found.text, "PO-2026-00042")
        XCTAssertEqual(found.pass.description, "regions")
        XCTAssertFalse(found.points.isEmpty)
        for p in found.points {
            XCTAssertTrue(box.x - 2 <= p.x && p.x <= box.x + box.width + 2 && box.y - 2 <= p.y && p.y <= box.y + box.height + 2,
                          "\(p) maps back into the pasted code \(box)")
        }
        // A code too large for the finder is still read, by the whole-frame scan at half size.
        let big = try XCTUnwrap(Encoders.qrencode(["-s", "24"], "PO-2026-00042").first)
        let (close, _) = Frame.cluttered(seed: 7, pasting: big, at: (100, 20))
        let read = try XCTUnwrap(reader.read(close).first)
        XCTAssertEqual(read.text, "PO-2026-00042")
        XCTAssertEqual(read.pass, ScanPass([.downscale(2)]))
    }

    /// Issue #15 item 2: after an empty regions pass the camera preset scans the whole frame
    /// at most once per `wholeFrameInterval`, while codes the finder sees are read on every frame.
    func testTheWholeFrameIsScannedAtMostOncePerInterval() throws {
        let small = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "PO-2026-00042").first)
        let (frame, _) = Frame.cluttered(seed: 6, pasting: small, at: (300, 200))
        let big = try XCTUnwrap(Encoders.qrencode(["-s", "24"], "PO-2026-00043").first)
        let (close, _) = Frame.cluttered(seed: 7, pasting: big, at: (100, 20))
        XCTAssertEqual(ReaderOptions.cameraFrame().wholeFrameInterval, .milliseconds(200))

        var options = ReaderOptions.cameraFrame()
        options.wholeFrameInterval = .seconds(3600)
        options.fullFrameInterval = .seconds(3600)
        let reader = try BarcodeReader(options: options)
        XCTAssertEqual(try reader.read(close).map(\.text), ["PO-2026-00043"], "the first empty regions pass is followed by the whole frame")
        XCTAssertEqual(try reader.read(close).map(\.text), [], "within the interval the whole frame waits")
        XCTAssertEqual(try reader.read(Self.withSensorNoise(close, seed: 1)).map(\.text), [], "sensor noise is not a scene change")
        let other = try XCTUnwrap(Encoders.qrencode(["-s", "24"], "PO-2026-00044").first)
        let (held, _) = Frame.cluttered(seed: 7, pasting: other, at: (500, 40))
        XCTAssertEqual(try reader.read(held).map(\.text), ["PO-2026-00044"], "a code held up changes the scene: the whole frame at once")
        XCTAssertEqual(try reader.read(held).map(\.text), [])
        XCTAssertEqual(try reader.read(frame).map(\.text), ["PO-2026-00042"], "a code the finder sees is read on every frame")
        XCTAssertEqual(try reader.read(frame).map(\.text), ["PO-2026-00042"])

        // Frames at 1 / interval fps (the kiosk's 5 fps replay) come a little early as often as
        // late: while something moves in view (a shade changing in a corner: not a scene change,
        // but not still) every one still gets the whole frame. At 30 fps one frame in six does.
        options.wholeFrameInterval = .milliseconds(200)
        let t0 = ContinuousClock.now
        let fiveFPS = try BarcodeReader(options: options)
        for (index, jitter) in [0, -2, 1, -3, -1, 0].enumerated() {
            let arrival = t0 + .milliseconds(200 * index + jitter)
            XCTAssertEqual(try Self.withShade(close, index).withView { try fiveFPS.read($0, arrivedAt: arrival) }.map(\.text), ["PO-2026-00043"], "5 fps frame \(index)")
        }
        XCTAssertEqual(try Self.framesRead(24, options: options) { Self.withShade(close, $0) }, [0, 6, 12, 18])
        // Issue #32: while nothing moves (the same frame, or the same view under fresh sensor
        // noise) the same pixels are not scanned whole again for nothing: five intervals apart.
        XCTAssertEqual(try Self.framesRead(31, options: options) { _ in close }, [0, 30])
        XCTAssertEqual(try Self.framesRead(31, options: options) { Self.withSensorNoise(close, seed: UInt64($0)) }, [0, 30])

        for interval in [nil, Duration.zero] {
            options.wholeFrameInterval = interval
            let everyFrame = try BarcodeReader(options: options)
            for _ in 0..<3 { XCTAssertEqual(try everyFrame.read(close).map(\.text), ["PO-2026-00043"], "interval \(String(describing: interval))") }
        }
    }

    /// Issue #32: after an empty regions pass the camera preset scans the whole frame shrunk
    /// every `wholeFrameInterval`, and at full resolution, which costs about four times as
    /// much, every `fullFrameInterval`: a small code the finder cannot see (here too faint for
    /// its edge threshold) is read once a second on an idle camera where something moves, not
    /// every 200 ms, and every 5 s where nothing does (the code is as faint to the scene's
    /// picture as to the finder, so it cannot tell the code came).
    func testTheFullResolutionScanWaitsForItsOwnInterval() throws {
        let code = try XCTUnwrap(Encoders.qrencode(["-s", "3"], "PO-2026-00045").first)
        var faint = GrayImage(width: 1280, height: 720, fill: 127)
        for y in 0..<code.height { for x in 0..<code.width { faint[500 + x, 300 + y] = code[x, y] < 128 ? 120 : 134 } }
        XCTAssertNil(try faint.withView { try CodeRegionFinder().regions(in: $0) }, "too faint for the finder")
        XCTAssertEqual(ReaderOptions.cameraFrame().fullFrameInterval, .seconds(1))
        XCTAssertEqual(try Self.framesRead(75, options: .cameraFrame()) { Self.withShade(faint, $0) }, [0, 30, 60], "at 30 fps, one frame in thirty")
        XCTAssertEqual(WholeFrameSchedule.stillFactor, 5)
        XCTAssertEqual(try Self.framesRead(151, options: .cameraFrame()) { _ in faint }, [0, 150], "still: one frame in 150")
    }

    /// Which of `count` frames at 30 fps (each 0.9 ms early or late, in turn) a new reader with
    /// `options` reads a code from.
    private static func framesRead(_ count: Int, options: ReaderOptions, _ frame: (Int) -> GrayImage) throws -> [Int] {
        let reader = try BarcodeReader(options: options)
        let t0 = ContinuousClock.now
        return try (0..<count).filter { index in
            try !frame(index).withView { try reader.read($0, arrivedAt: t0 + .microseconds(33_333 * index + (index % 2 == 0 ? 900 : -900))) }.isEmpty
        }
    }

    /// `image` with a 100 px square in its bottom right corner shaded by `index` (nine shades 20
    /// levels apart): a change in view that covers a few of `SceneSignature`'s cells, not enough
    /// for a scene change.
    private static func withShade(_ image: GrayImage, _ index: Int) -> GrayImage {
        var shaded = image
        for y in 610..<710 { for x in 1170..<1270 { shaded[x, y] = UInt8(30 + index % 9 * 20) } }
        return shaded
    }

    /// `image` with every pixel moved by up to ±12 grey levels, as a camera's next frame of the same view.
    private static func withSensorNoise(_ image: GrayImage, seed: UInt64) -> GrayImage {
        var random = Frame.Random(state: 0x9E37_79B9_7F4A_7C15 ^ seed)
        let pixels = image.pixels.map { UInt8(clamping: Int($0) + Int(random.next() % 25) - 12) }
        return GrayImage(width: image.width, height: image.height, pixels: pixels)
    }

    private func assertInside(_ regions: [CodeRegionFinder.Region], _ frame: GrayImage, line: UInt = #line) {
        for r in regions {
            XCTAssertTrue(r.x >= 0 && r.y >= 0 && r.width > 0 && r.height > 0 && r.x + r.width <= frame.width && r.y + r.height <= frame.height,
                          "\(r) outside \(frame.width)x\(frame.height)", line: line)
        }
    }
}

private extension CodeRegionFinder.Region {
    func contains(_ b: CodeRegionFinder.Region) -> Bool {
        x <= b.x && y <= b.y && x + width >= b.x + b.width && y + height >= b.y + b.height
    }
}

/// Deterministic camera-like 1280x720 frames.
private enum Frame {
    /// xorshift64*: the same frame on every run and platform.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2685821657736338717
        }
        mutating func int(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(next() % UInt64(range.count)) }
        /// Roughly normal (sum of four uniforms), mean 0.
        mutating func gauss(_ sigma: Double) -> Int {
            let u = (0..<4).map { _ in Double(next() % 10_000) / 10_000 }.reduce(0, +) - 2
            return Int((u * sigma * 1.73).rounded())
        }
    }

    static func noise(seed: UInt64, sigma: Double) -> GrayImage {
        var rng = Random(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var image = GrayImage(width: 1280, height: 720, fill: 140)
        for i in image.pixels.indices { image.pixels[i] = UInt8(max(0, min(255, 140 + rng.gauss(sigma)))) }
        return image
    }

    /// Boxes, lines and short text-like strokes on grey, `code` pasted at `origin`, then noise;
    /// returns the frame and where the code is.
    static func cluttered(seed: UInt64, pasting code: GrayImage, at origin: (x: Int, y: Int)) -> (GrayImage, CodeRegionFinder.Region) {
        var rng = Random(state: seed &* 0x9E37_79B9_7F4A_7C15 | 1)
        var image = GrayImage(width: 1280, height: 720, fill: 140)
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ v: UInt8) {
            let xs = max(0, x0), xe = min(1280, x1), ys = max(0, y0), ye = min(720, y1)
            guard xs < xe, ys < ye else { return }
            for y in ys..<ye { for x in xs..<xe { image[x, y] = v } }
        }
        for _ in 0..<60 {
            let x = rng.int(0...1279), y = rng.int(0...719)
            fill(x, y, x + rng.int(20...300), y + rng.int(10...200), UInt8(rng.int(30...235)))
        }
        for _ in 0..<40 {  // straight lines at random angles, 1-3 px wide
            let x0 = Double(rng.int(0...1279)), y0 = Double(rng.int(0...719))
            let x1 = Double(rng.int(0...1279)), y1 = Double(rng.int(0...719))
            let v = UInt8(rng.int(0...255)), width = rng.int(1...3)
            let steps = Int(max(abs(x1 - x0), abs(y1 - y0)))
            for s in 0...max(1, steps) {
                let t = Double(s) / Double(max(1, steps))
                let x = Int(x0 + (x1 - x0) * t), y = Int(y0 + (y1 - y0) * t)
                fill(x, y, x + width, y + width, v)
            }
        }
        for _ in 0..<50 {  // text-like marks: a word of 5-9 glyphs of 1 px strokes, 7x11 px each
            let x = rng.int(0...1180), y = rng.int(0...700), v: UInt8 = rng.int(0...1) == 0 ? 20 : 235
            for g in 0..<rng.int(5...9) {
                for _ in 0..<3 {
                    let gx = x + g * 7 + rng.int(0...4), gy = y + rng.int(0...2)
                    if rng.int(0...1) == 0 { fill(gx, gy, gx + 1, gy + 9, v) } else { fill(gx, gy + rng.int(0...8), gx + 5, gy + rng.int(0...8) + 1, v) }
                }
            }
        }
        for y in 0..<code.height where origin.y + y < 720 {
            for x in 0..<code.width where origin.x + x < 1280 { image[origin.x + x, origin.y + y] = code[x, y] }
        }
        for i in image.pixels.indices { image.pixels[i] = UInt8(max(0, min(255, Int(image.pixels[i]) + rng.gauss(3)))) }
        let visible = CodeRegionFinder.Region(x: origin.x, y: origin.y, width: min(code.width, 1280 - origin.x),
                                              height: min(code.height, 720 - origin.y), lines: .both)
        return (image, visible)
    }
}
