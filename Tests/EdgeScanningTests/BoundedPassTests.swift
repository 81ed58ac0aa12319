import EdgeImaging
@testable import EdgeScanning
import XCTest

/// Issue #16 item 1 (SCN-10): every scan pass computes what it will allocate first and refuses
/// past the pixel budget, extreme aspect ratios included; the reader reports a refused pass as a
/// per-file error when nothing was read, and a pass still running at the time limit is stopped.
final class BoundedPassTests: XCTestCase {
    /// Every pass the default plan can produce for any size, plus the largest parameters an
    /// operator can name (`--passes`).
    static let allPasses: [ScanPass] = {
        var passes: [ScanPass] = []
        for (w, h) in [(100, 100), (450, 450), (900, 900), (1300, 1300), (5000, 5000), (20_000, 2)] {
            passes += BarcodeReader.plan(width: w, height: h, formats: Set(BarcodeFormat.allCases))
        }
        passes += ["upscale-4", "upscale-4+pad-50", "pad-50", "rotate-90", "rotate-179", "rotate--45", "downscale-16",
                   "regions", "regions+upscale-4", "rectify", "upscale-4+rotate-45", "stretch", "sparse"]
            .compactMap { try? ScanPass(parsing: $0) }
        var seen = Set<ScanPass>()
        return passes.filter { seen.insert($0).inserted }
    }()

    /// A small budget, so the hostile shapes are cheap to make in a test: a strip 100 times as
    /// long as the budget's square side behaves like 1,000,000 x 2 does under 64 MP.
    static let small = WorkBudget(maxPixels: 200_000)

    /// Each pass on each extreme shape: it returns images within the budget, returns none (it
    /// has nothing to add), or refuses with `.tooLarge`; never a trap or an oversized image.
    func testEveryPassStaysWithinTheBudgetOnExtremeShapes() throws {
        let shapes = [(20_000, 2), (2, 20_000), (6_550, 1), (1, 6_550), (10_000, 3), (1, 1), (447, 447), (3, 3)]
        var refusals = 0
        for (w, h) in shapes {
            let image = GrayImage(width: w, height: h, fill: 200)
            for pass in Self.allPasses {
                do throws(TransformError) {
                    for out in try PassImage.made(by: pass, from: image, budget: Self.small) {
                        XCTAssertLessThanOrEqual(out.image.pixelCount, Self.small.maxPixels, "\(pass) on \(w) x \(h)")
                    }
                } catch {
                    XCTAssertEqual(error.code, .tooLarge, "\(pass) on \(w) x \(h): \(error.message)")
                    XCTAssertEqual(error.context["limit"], "200000", "\(pass) on \(w) x \(h)")
                    refusals += 1
                }
            }
        }
        XCTAssertGreaterThan(refusals, 0, "the thin shapes must hit the budget somewhere")
    }

    /// The numbers from the finding, at the real (loaders') budget: no allocation is attempted.
    func testPadAndRotateOfTheReportedShapesAreRefusedAtTheDefaultBudget() throws {
        let cases: [(Int, Int, String, String)] = [
            (1_000_000, 2, "pad-10", "1200000 x 200002"),
            (200_000, 2, "pad-10", "240000 x 40002"),
            (65_500, 1, "pad-10", "78600 x 13101"),
            (100_000, 3, "pad-10", "120000 x 20003"),
            (200_000, 2, "rotate-45", "141423 x 141423"),
            (65_500, 1, "rotate-30", "x"),
        ]
        for (w, h, name, size) in cases {
            let image = GrayImage(width: w, height: h)
            XCTAssertThrowsError(try PassImage.made(by: ScanPass(parsing: name), from: image), "\(name) on \(w) x \(h)") { error in
                let e = error as? TransformError
                XCTAssertEqual(e?.code, .tooLarge)
                XCTAssertTrue(e?.message.contains(size) == true, e?.message ?? "")
                XCTAssertTrue(e?.message.contains("the limit is 64000000") == true, e?.message ?? "")
            }
        }
    }

    /// The default plan for a long strip: rotations are preceded by a shrink that leaves nothing
    /// (the pass is skipped), upscaling is not planned, and pad is refused.
    func testDefaultPlanOnAStripSkipsOrRefusesEveryEnlargingPass() throws {
        let plan = BarcodeReader.plan(width: 1_000_000, height: 2, formats: Set(BarcodeFormat.allCases))
        XCTAssertFalse(plan.contains { $0.transforms.contains { if case .upscale = $0 { return true } else { return false } } })
        let image = GrayImage(width: 20_000, height: 2)
        let rotations = plan.filter { pass in pass.transforms.contains { if case .rotate = $0 { return true } else { return false } } }
        XCTAssertFalse(rotations.isEmpty, "the plan has no rotation: the loop below would check nothing")
        for pass in rotations {
            XCTAssertEqual(try PassImage.made(by: pass, from: image, budget: Self.small).count, 0, "\(pass)")
        }
    }

    /// The reader turns a refused pass into the per-file error when nothing was read: a code,
    /// a message naming the pass, the size and the limit.
    func testReaderReportsARefusedPassWhenNothingWasRead() throws {
        let reader = try BarcodeReader(options: ReaderOptions(timeBudget: .seconds(600), maxPixels: 200_000))
        XCTAssertThrowsError(try reader.read(GrayImage(width: 20_000, height: 2))) { error in
            let e = error as? ScanError
            XCTAssertEqual(e?.code, .passTooLarge)
            XCTAssertEqual(e?.context["pass"], "pad-10")
            XCTAssertEqual(e?.context["limit"], "200000")
            XCTAssertTrue(e?.message.hasPrefix("no code found; pass pad-10 was not run on this 20000 x 2 image: pad by 2000 px would make a 24000 x 4002 image") == true,
                          e?.message ?? "")
        }
    }

    /// The reported 1,000,000 x 2 image, through the whole default plan at the default budget.
    func testReaderOnTheReportedStripAtTheDefaultBudget() throws {
        let reader = try BarcodeReader(options: ReaderOptions(timeBudget: .seconds(600)))
        XCTAssertThrowsError(try reader.read(GrayImage(width: 1_000_000, height: 2))) { error in
            let e = error as? ScanError
            XCTAssertEqual(e?.code, .passTooLarge)
            XCTAssertTrue(e?.message.contains("1200000 x 200002") == true, e?.message ?? "")
        }
    }

    /// A refused pass does not hide a code a later pass reads, and an image that fits every pass
    /// still reads "no code" as before (no error).
    func testARefusedPassDoesNotStopLaterPasses() throws {
        let image = try TestImages.sample("po-code128.png")
        let options = ReaderOptions(passes: [ScanPass([.upscale(4)]), ScanPass([.pad(50)]), .plain], timeBudget: .seconds(600),
                                    maxPixels: image.pixelCount)
        let results = try BarcodeReader(options: options).read(image)
        XCTAssertEqual(results.first?.text, "PO-2026-00042")
        XCTAssertEqual(results.first?.pass, .plain)
        XCTAssertEqual(try BarcodeReader(options: ReaderOptions(timeBudget: .seconds(600))).read(GrayImage(width: 300, height: 200)), [])
    }

    /// A caller's view larger than the budget (a camera buffer no loader checked) is scanned in
    /// place by the plain pass, but never copied for transforms.
    func testAnOversizedViewIsNotCopiedForTransforms() throws {
        let image = GrayImage(width: 1000, height: 300)
        let options = ReaderOptions(passes: [.plain, ScanPass([.invert])], timeBudget: .seconds(600), maxPixels: 100_000)
        XCTAssertThrowsError(try BarcodeReader(options: options).read(image)) { error in
            XCTAssertEqual((error as? ScanError)?.code, .passTooLarge)
            XCTAssertTrue((error as? ScanError)?.message.contains("copying the image would make a 1000 x 300 image") == true)
        }
    }

    /// The time limit is checked inside a running pass: a pass that would take seconds (a 4x
    /// enlargement, then a rotation of 64 MP) stops at the limit instead of running to its end.
    /// Not a timing test: the bound asserted is far above the limit and far below the pass.
    func testTheTimeLimitStopsAPassWhileItRuns() throws {
        let image = GrayImage(width: 2000, height: 2000, fill: 128)
        let options = ReaderOptions(passes: [try ScanPass(parsing: "upscale-4+rotate-45")], timeBudget: .milliseconds(10),
                                    maxPixels: 1 << 40, timeLimit: .milliseconds(20))
        let clock = ContinuousClock()
        let start = clock.now
        XCTAssertEqual(try BarcodeReader(options: options).read(image), [])
        XCTAssertLessThan(clock.now - start, .seconds(5), "stopped inside the pass, not after 64 MP x 2")
        XCTAssertEqual(ReaderOptions(timeBudget: .seconds(3)).effectiveTimeLimit, .seconds(6))
    }

    /// The camera preset's region pass runs under the same budget.
    func testRegionsPassOnExtremeViews() throws {
        for (w, h) in [(20_000, 40), (40, 20_000), (1, 1), (65_500, 1)] {
            let image = GrayImage(width: w, height: h, fill: 90)
            let reader = try BarcodeReader(options: .cameraFrame())
            XCTAssertEqual(try reader.read(image), [], "\(w) x \(h)")
        }
    }
}
