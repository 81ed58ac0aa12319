@testable import EdgeImaging
import EdgeTestSupport
import Testing

/// SCN-10 / issue #16 item 1: every transform a scan pass uses computes the size of what it
/// makes before allocating, refuses past the pixel budget (overflow-safe), and stops when the
/// budget's deadline passes while it runs. The shapes are the hostile ones: long thin images
/// whose padded or rotated canvas grows with the square of their length.
@Suite struct WorkBudgetTests {
    /// 1,000,000 x 2 white: 2 MB, what a 2 KB PNG decodes to.
    static let strip = GrayImage(width: 1_000_000, height: 2)
    /// A small budget: a few thin shapes exercise every refusal quickly.
    static let small = WorkBudget(maxPixels: 200_000)
    static let past = WorkBudget(deadline: ContinuousClock.now - .seconds(1))

    private func tooLarge(_ body: () throws -> Any) -> TransformError? {
        let error = #expect(throws: TransformError.self) { _ = try body() }
        #expect(error?.code == .tooLarge, "\(error?.message ?? "no error")")
        return error
    }

    @Test func sharesTheLoadersDefaultLimit() {
        #expect(WorkBudget.standard.maxPixels == ImageLimits().maxPixels)
        #expect(WorkBudget.standard.deadline == nil)
    }

    @Test func sizeCheckIsOverflowSafe() throws {
        let budget = WorkBudget.standard
        #expect(try budget.checkSize(width: 8000, height: 8000, for: "t") == 64_000_000)
        let over = tooLarge { try budget.checkSize(width: 8001, height: 8000, for: "t") }
        #expect(over?.message == "t would make a 8001 x 8000 image (64008000 pixels); the limit is 64000000")
        #expect(over?.context["limit"] == "64000000")
        _ = tooLarge { try budget.checkSize(width: Int.max, height: 3, for: "t") }
        _ = tooLarge { try budget.checkSize(width: -1, height: 3, for: "t") }
        _ = tooLarge { try GrayImage(width: Int.max, height: Int.max, budget: budget, for: "t") }
        _ = tooLarge { try budget.checkedSide(.infinity, for: "t") }
        _ = tooLarge { try budget.checkedSide(.nan, for: "t") }
        _ = tooLarge { try budget.checkedSide(1e300, for: "t") }
    }

    /// The finding: pad-10 of 1,000,000 x 2 asked for 1,200,000 x 200,002 (240 GB).
    @Test func padOfALongStripIsRefusedBeforeAllocating() throws {
        let error = tooLarge { try Self.strip.withView { try $0.padded(by: 100_000) } }
        #expect(error?.message.contains("1200000 x 200002") == true)
        #expect(error?.context["pixels"] == "240002400000")
        _ = tooLarge { try Self.strip.withView { try $0.padded(by: Int.max / 2) } }
        let bad = #expect(throws: TransformError.self) { try Self.strip.withView { try $0.padded(by: -1) } }
        #expect(bad?.code == .badParameter)
        // A margin that fits is still applied.
        let padded = try Self.strip.withView { try $0.padded(by: 8) }
        #expect(padded.width == 1_000_016 && padded.height == 18)
    }

    /// 200,000 x 2 at 45 degrees needs a 141,423-pixel square canvas.
    @Test func rotationOfALongStripIsRefused() throws {
        let strip = GrayImage(width: 200_000, height: 2)
        let error = tooLarge { try strip.withView { try $0.rotated(degrees: 45) } }
        #expect(error?.message.contains("141423 x 141423") == true, "\(error?.message ?? "")")
        let bad = #expect(throws: TransformError.self) { try strip.withView { try $0.rotated(degrees: .infinity) } }
        #expect(bad?.code == .badParameter)
        // A quarter turn keeps the pixel count and is allowed.
        let (turned, geometry) = try strip.withView { try $0.rotated(degrees: 90) }
        #expect(turned.pixelCount <= 2 * 200_002 + 200_002 && geometry.height >= 200_000)
    }

    @Test func upscaleChecksEachSideAndTheProduct() throws {
        let thin = GrayImage(width: 20_000, height: 2)
        _ = tooLarge { try thin.withView { try $0.upscaled(by: 4, budget: Self.small) } }
        _ = tooLarge { try thin.withView { try $0.upscaled(by: Int.max / 4) } }
        let bad = #expect(throws: TransformError.self) { try thin.withView { try $0.upscaled(by: 0) } }
        #expect(bad?.code == .badParameter)
        let ok = try GrayImage(width: 100, height: 2).withView { try $0.upscaled(by: 4, budget: Self.small) }
        #expect(ok.width == 400 && ok.height == 8)
    }

    @Test func downscaleOfExtremeShapesIsEmptyNotATrap() throws {
        let shrunk = try GrayImage(width: 65_500, height: 1).withView { try $0.downscaled(by: 16) }
        #expect(shrunk.width == 4093 && shrunk.height == 0 && shrunk.pixels.isEmpty)
        let bad = #expect(throws: TransformError.self) { try Self.strip.withView { try $0.downscaled(by: 0) } }
        #expect(bad?.code == .badParameter)
    }

    /// Same-size filters check their output and their working buffers too: the input may be a
    /// caller's view no loader has checked, and binarize's integral image is 8 bytes a pixel.
    @Test func sameSizeFiltersRespectTheBudget() throws {
        let image = GrayImage(width: 1000, height: 300)   // 300,000 pixels > 200,000
        let filters: [(String, (ImageView) throws -> GrayImage?)] = [
            ("invert", { try $0.inverted(budget: Self.small) }),
            ("stretch", { try $0.contrastStretched(budget: Self.small) }),
            ("blur", { try $0.blurred(budget: Self.small) }),
            ("binarize", { try $0.binarized(budget: Self.small) }),
            ("erode", { try $0.eroded(budget: Self.small) }),
            ("dilate", { try $0.dilated(budget: Self.small) }),
            ("sharpen", { try $0.sharpened(budget: Self.small) }),
        ]
        for (name, filter) in filters {
            let error = #expect(throws: TransformError.self, "\(name)") { _ = try image.withView { try filter($0) } }
            #expect(error?.code == .tooLarge, "\(name)")
        }
        // An image exactly at the budget still gets every filter (binarize's integral image,
        // (w + 1) x (h + 1) entries, is a working buffer bounded by the output).
        let exact = GrayImage(width: 400, height: 500)   // exactly 200,000
        for (name, filter) in filters {
            #expect(try exact.withView { try filter($0) }.map { $0.pixelCount == 200_000 } ?? (name == "stretch"), "\(name)")
        }
    }

    /// Binarize sums its windows in UInt32 when they are small enough to be exact, else UInt64:
    /// the result follows the local-mean rule, and both widths give the same image.
    @Test func binarizeIsTheSameWithEitherSumWidth() throws {
        var rng = SplitMix64(seed: 7)
        let w = 300, h = 200
        let noisy = GrayImage(width: w, height: h, pixels: (0..<(w * h)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        try noisy.withView { v in
            let out = try v.binarized(window: 31)
            // Reference: the same rule computed directly for a sample of pixels.
            for (x, y) in [(0, 0), (150, 100), (299, 199), (17, 180)] {
                let r = 15
                let x0 = max(0, x - r), x1 = min(w, x + r + 1), y0 = max(0, y - r), y1 = min(h, y + r + 1)
                var sum = 0
                for yy in y0..<y1 { for xx in x0..<x1 { sum += Int(noisy[xx, yy]) } }
                let mean = sum / ((x1 - x0) * (y1 - y0))
                #expect(out[x, y] == (Int(noisy[x, y]) < mean - 8 ? 0 : 255), "(\(x), \(y))")
            }
        }
        for radius in [4, 15, 150] {
            var narrow = GrayImage(width: w, height: h, fill: 255), wide = narrow
            try noisy.withView { v in
                try v.thresholdAgainstLocalMean(UInt32.self, entries: (w + 1) * (h + 1), radius: radius, offset: 8, global: 100,
                                                into: &narrow, budget: .standard)
                try v.thresholdAgainstLocalMean(UInt64.self, entries: (w + 1) * (h + 1), radius: radius, offset: 8, global: 100,
                                                into: &wide, budget: .standard)
            }
            #expect(narrow == wide, "radius \(radius)")
        }
    }

    /// Extreme shapes through every filter within the default budget: no trap, output the
    /// input's size.
    @Test func filtersHandleOnePixelHighAndWideImages() throws {
        for (w, h) in [(65_500, 1), (1, 65_500), (1, 1), (100_000, 3), (3, 100_000)] {
            let image = GrayImage(width: w, height: h, fill: 17)
            try image.withView { v in
                for out in [try v.inverted(), try v.blurred(), try v.binarized(), try v.eroded(), try v.dilated(), try v.sharpened()] {
                    #expect(out.width == w && out.height == h, "\(w) x \(h)")
                }
                #expect(try v.contrastStretched() == nil, "a flat image has nothing to stretch")
            }
        }
    }

    /// A deadline that has passed stops a running transform within a band of rows, whatever
    /// its shape (a 1,000,000-pixel row is checked on its own).
    @Test func aPassedDeadlineStopsTransformsWhileTheyRun() throws {
        let square = GrayImage(width: 600, height: 600)
        let transforms: [(String, (ImageView) throws -> Any)] = [
            ("invert", { try $0.inverted(budget: Self.past) }),
            ("stretch", { try $0.contrastStretched(budget: Self.past) as Any }),
            ("blur", { try $0.blurred(budget: Self.past) }),
            ("binarize", { try $0.binarized(budget: Self.past) }),
            ("erode", { try $0.eroded(budget: Self.past) }),
            ("dilate", { try $0.dilated(budget: Self.past) }),
            ("sharpen", { try $0.sharpened(budget: Self.past) }),
            ("pad", { try $0.padded(by: 60, budget: Self.past) }),
            ("upscale", { try $0.upscaled(by: 2, budget: Self.past) }),
            ("downscale", { try $0.downscaled(by: 2, budget: Self.past) }),
            ("downscale-1.5", { try $0.downscaledThreeHalves(budget: Self.past) }),
            ("rotate", { try $0.rotated(degrees: 30, budget: Self.past) }),
        ]
        for (name, transform) in transforms {
            let error = #expect(throws: TransformError.self, "\(name)") { _ = try square.withView { try transform($0) } }
            #expect(error?.code == .outOfTime, "\(name): \(error?.message ?? "")")
        }
        let strip = #expect(throws: TransformError.self) { try Self.strip.withView { try $0.inverted(budget: Self.past) } }
        #expect(strip?.code == .outOfTime)
        // A deadline in the future changes nothing.
        let later = WorkBudget(deadline: ContinuousClock.now + .seconds(600))
        #expect(try square.withView { try $0.blurred(budget: later) } == square)
    }

    @Test func cropWithHostileCoordinatesIsClampedNotATrap() {
        let image = GrayImage(width: 10, height: 10)
        image.withView { v in
            #expect(v.cropped(x: Int.max, y: Int.max, width: Int.max, height: Int.max).pixelCount == 0)
            #expect(v.cropped(x: 5, y: 5, width: Int.max, height: Int.max).pixelCount == 25)
            #expect(v.cropped(x: Int.min, y: Int.min, width: Int.max, height: Int.max).pixelCount == 0)
            #expect(v.cropped(x: -5, y: -5, width: 10, height: 10).pixelCount == 25)
            // The view of a region (no copy) clamps the same way and shows the same pixels.
            #expect(v.region(x: Int.max, y: 0, width: Int.max, height: 3).width == 0)
            #expect(v.region(x: -5, y: -5, width: 10, height: 10).copy() == v.cropped(x: -5, y: -5, width: 10, height: 10))
        }
        let ramp = GrayImage(width: 10, height: 10, pixels: (0..<100).map { UInt8($0) })
        ramp.withView { v in
            let part = v.region(x: 3, y: 4, width: 5, height: 2)
            #expect(part.width == 5 && part.height == 2 && part.rowStride == 10)
            #expect(part.copy().pixels == [43, 44, 45, 46, 47, 53, 54, 55, 56, 57])
        }
    }
}
