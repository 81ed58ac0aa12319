import EdgeImaging
import EdgeTestSupport
@testable import EdgeScanning
import XCTest

/// Tests here are about *which* pass reads what; debug builds run passes ~10x slower than
/// release, so they use a time budget that never cuts the plan short.
private let unlimited = Duration.seconds(600)

final class BarcodeReaderTests: XCTestCase {
    func testReadsEverySampleWithItsSymbology() throws {
        let cases: [(String, BarcodeFormat, String)] = [
            ("linking-code.png", .qr, "AB-7KX-M4PQR"),
            ("po-code128.png", .code128, "PO-2026-00042"),
            ("po-code39.png", .code39, "PO-2026-00043"),
            ("product-ean13.png", .ean13, "4006381333931"),
            ("material.png", .code128, "MAT-ST-4471"),
        ]
        let reader = try BarcodeReader()
        for (file, format, text) in cases {
            let image = try TestImages.sample(file)
            let results = try reader.read(image)
            XCTAssertEqual(results.map(\.format), [format], file)
            XCTAssertEqual(results.first?.text, text, file)
            // Clean labels are read by the plan's first, cheapest pass: the sparse scan, at half
            // size for the QR samples' 8 px modules.
            let plan = BarcodeReader.plan(width: image.width, height: image.height, formats: reader.options.formats,
                                          narrowRun: image.withView { ModuleEstimate.narrowRun(in: $0) })
            XCTAssertEqual(results.first?.pass, plan.first, file)
            XCTAssertEqual(results.first?.bytesDifferFromText, false, file)
        }
    }

    func testOnlyEnabledSymbologiesAreReported() throws {
        let qrOnly = try BarcodeReader(options: ReaderOptions(formats: [.qr]))
        XCTAssertEqual(try qrOnly.read(TestImages.sample("po-code128.png")), [])
        XCTAssertEqual(try qrOnly.read(TestImages.sample("linking-code.png")).map(\.format), [.qr])
    }

    func testInvertedQRIsFoundByTheInvertPass() throws {
        let image = try TestImages.sample("linking-code.png").withView { try $0.inverted() }
        XCTAssertEqual(try BarcodeReader(options: .plainOnly()).read(image), [], "zbar alone reads only dark-on-light")
        let results = try BarcodeReader().read(image)
        XCTAssertEqual(results.first?.text, "AB-7KX-M4PQR")
        XCTAssertEqual(results.first?.pass.description, "invert")
    }

    func testCode128AtFortyDegreesIsFoundByARotationPassAndPointsMapBack() throws {
        let source = try TestImages.sample("po-code128.png").withView { try $0.padded(by: 40) }
        let (image, _) = try source.withView { try $0.rotated(degrees: 40) }
        XCTAssertEqual(try BarcodeReader(options: .plainOnly()).read(image), [])
        let results = try BarcodeReader(options: ReaderOptions(formats: [.code128], timeBudget: unlimited)).read(image)
        let result = try XCTUnwrap(results.first)
        XCTAssertEqual(result.text, "PO-2026-00042")
        XCTAssertTrue(result.pass.description.hasPrefix("rotate-"), result.pass.description)
        XCTAssertEqual(result.orientation, .unknown)
        XCTAssertFalse(result.points.isEmpty)
        for p in result.points {
            XCTAssertTrue((0...image.width).contains(p.x) && (0...image.height).contains(p.y), "\(p) outside \(image.width)x\(image.height)")
        }
    }

    func testTinyQRIsFoundByUpscaling() throws {
        // samples/linking-code.png area-resampled to 38x38 (1.3 pixels per module): zbar cannot
        // find the finder patterns until the image is enlarged.
        let tiny = try ImageLoader.load(path: TestImages.fixture("tiny-qr.pgm"))
        XCTAssertEqual(try BarcodeReader(options: .plainOnly()).read(tiny), [])
        let results = try BarcodeReader(options: ReaderOptions(timeBudget: unlimited)).read(tiny)
        XCTAssertEqual(results.first?.text, "AB-7KX-M4PQR")
        let steps = results.first?.pass.transforms ?? []
        XCTAssertTrue(steps.contains(.upscale(2)) || steps.contains(.upscale(3)), "\(results.first?.pass.description ?? "none")")
    }

    func testQRWithoutQuietZoneIsFoundByPadding() throws {
        let full = try TestImages.sample("linking-code.png")
        // qrencode drew a 4-module (32 px) margin; cut it away entirely.
        let cropped = full.withView { $0.cropped(x: 32, y: 32, width: full.width - 64, height: full.height - 64) }
        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr], timeBudget: unlimited)).read(cropped)
        XCTAssertEqual(results.first?.text, "AB-7KX-M4PQR")
        let plain = try XCTUnwrap(try BarcodeReader(options: .plainOnly(formats: [.qr])).read(full).first)
        // Corners from a padded pass map back into the cropped image's coordinates. (This was inside
        // an `if` on both reads, so a failing read or an empty corner list asserted nothing.)
        let r = try XCTUnwrap(results.first)
        XCTAssertNotEqual(r.pass, .plain, "the cropped code has no quiet zone: a padded pass reads it")
        XCTAssertEqual(r.points.count, 4)
        XCTAssertEqual(plain.points.count, 4)
        for (a, b) in zip(r.points, plain.points) {
            XCTAssertEqual(Double(a.x), Double(b.x - 32), accuracy: 3)
            XCTAssertEqual(Double(a.y), Double(b.y - 32), accuracy: 3)
        }
    }

    /// A tight crop that kept dark background beside an EAN-13's bars (ean13-1/n526.png is
    /// such a photo): zbar finds no quiet zone; the clear-border pass whitens the frame.
    func testADarkFrameBesideTheBarsIsClearedForTheQuietZones() throws {
        var image = try Encoders.zint(["-b", "13", "--quietzones", "-d", "400638133393"])
        let row = image.height / 2
        let dark = (0..<image.width).filter { image.pixels[row * image.rowStride + $0] < 128 }
        let first = try XCTUnwrap(dark.first), last = try XCTUnwrap(dark.last)
        // Black from the edges to 4 px before the first bar and after the last.
        for y in 0..<image.height {
            for x in 0..<image.width where x < first - 4 || x > last + 4 { image.pixels[y * image.rowStride + x] = 0 }
        }
        XCTAssertEqual(try BarcodeReader(options: .plainOnly(formats: [.ean13])).read(image), [])
        let results = try BarcodeReader(options: ReaderOptions(formats: [.ean13], timeBudget: unlimited)).read(image)
        XCTAssertEqual(results.map(\.text), ["4006381333931"])
        XCTAssertEqual(results.first?.pass, ScanPass([.clearBorder]))
        // Only the frame went: every bar pixel of the cleared image is still dark.
        let cleared = try image.withView { try $0.clearingDarkEnds(rows: true, columns: false) }
        XCTAssertTrue(dark.allSatisfy { cleared.pixels[row * cleared.rowStride + $0] < 128 })
        XCTAssertTrue((0..<(first - 4)).allSatisfy { cleared.pixels[row * cleared.rowStride + $0] == 255 })
    }

    func testQRPointsAreTheFourCorners() throws {
        let result = try XCTUnwrap(try BarcodeReader().read(TestImages.sample("linking-code.png")).first)
        XCTAssertEqual(result.points.count, 4)
        XCTAssertEqual(result.orientation, .up)
        XCTAssertGreaterThan(result.quality, 0)
    }

    /// A QR code with 4 px modules is read first by the two-thirds pass, and its corners map back
    /// onto the full-size image: they are where the full-size sparse pass puts them.
    func testQRWithFourPixelModulesIsReadAtTwoThirdsWithItsCornersInPlace() throws {
        let text = "https://example.com/edge/two-thirds/receiving-dock-7/bay-12"
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "4"], text).first)
        XCTAssertGreaterThanOrEqual(min(qr.width, qr.height), 150)
        // zbar's plan: edge's own QR reader, which would read this clean code first, left out.
        let zbarPlan = BarcodeReader.plan(width: qr.width, height: qr.height, formats: [.qr], narrowRun: qr.withView { ModuleEstimate.narrowRun(in: $0) })
            .filter { $0.decoder != .qrDirect }
        let read = try XCTUnwrap(try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: zbarPlan, timeBudget: unlimited)).read(qr).first)
        XCTAssertEqual(read.text, text)
        XCTAssertEqual(read.pass, ScanPass([.downscaleThreeHalves], lines: .sparse))
        let full = try XCTUnwrap(try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(lines: .sparse)])).read(qr).first)
        XCTAssertEqual(read.points.count, 4)
        XCTAssertEqual(full.points.count, 4, "zip over no corners would compare nothing")
        for (a, b) in zip(read.points, full.points) {
            XCTAssertEqual(Double(a.x), Double(b.x), accuracy: 3)
            XCTAssertEqual(Double(a.y), Double(b.y), accuracy: 3)
        }
    }

    func testBlankAndDegenerateImagesGiveNoResults() throws {
        let reader = try BarcodeReader()
        XCTAssertEqual(try reader.read(GrayImage(width: 640, height: 480)), [])
        XCTAssertEqual(try reader.read(GrayImage(width: 1, height: 1)), [])
        XCTAssertEqual(try reader.read(GrayImage(width: 0, height: 0)), [])
        // Seeded, so a read found in noise fails every run and can be looked at; 120 seeds gave
        // no read at all once an empty Code 128 stopped counting as one (see the next test).
        for seed: UInt64 in [1, 2, 3] {
            var generator = SplitMix64(seed: seed)
            var noise = GrayImage(width: 320, height: 240)
            for i in noise.pixels.indices { noise.pixels[i] = UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(try reader.read(noise).filter { $0.format != .code39 }, [], "noise (seed \(seed)) must not yield checked codes")
        }
    }

    /// CI once read an empty Code 128 (start, check, stop; text "") from random noise: zbar's
    /// Code 128 has no minimum length. Drawn here from the symbol's own bar widths, Start B,
    /// the check character (104 mod 103 = 1) and Stop, it is no read; one character still is.
    func testACode128WithNoDataIsNoRead() throws {
        let module = 3, quiet = 12, height = 60
        let widths = [2, 1, 1, 2, 1, 4] + [2, 2, 2, 1, 2, 2] + [2, 3, 3, 1, 1, 1, 2]
        var image = GrayImage(width: (2 * quiet + widths.reduce(0, +)) * module, height: height)
        for i in image.pixels.indices { image.pixels[i] = 255 }
        var x = quiet * module
        for (index, width) in widths.enumerated() {
            if index % 2 == 0 {
                for y in 0..<height { for dx in 0..<(width * module) { image.pixels[y * image.rowStride + x + dx] = 0 } }
            }
            x += width * module
        }
        let reader = try BarcodeReader(options: ReaderOptions(formats: [.code128], timeBudget: unlimited))
        XCTAssertEqual(try reader.read(image), [])
        let one = try Encoders.zint(["-b", "20", "--quietzones", "-d", "A"])
        XCTAssertEqual(try reader.read(one).map(\.text), ["A"])
    }

    func testMaxPassesOneRunsOnlyThePlainPass() throws {
        let image = try TestImages.sample("linking-code.png").withView { try $0.inverted() }
        let reader = try BarcodeReader(options: ReaderOptions(maxPasses: 1))
        XCTAssertEqual(try reader.read(image), [])
    }

    func testExplicitPassListIsHonoured() throws {
        let image = try TestImages.sample("linking-code.png").withView { try $0.inverted() }
        let reader = try BarcodeReader(options: ReaderOptions(passes: [ScanPass([.invert])]))
        XCTAssertEqual(try reader.read(image).first?.pass.description, "invert")
    }

    func testNoFormatsIsRefused() {
        XCTAssertThrowsError(try BarcodeReader(options: ReaderOptions(formats: []))) { error in
            XCTAssertEqual((error as? ScanError)?.code, .unknownSymbology)
        }
    }

    func testPaddedViewIsScannedWithoutLosingRows() throws {
        // A view whose rows are padded (stride > width), as camera buffers can be.
        let image = try TestImages.sample("po-code128.png")
        let stride = image.width + 13
        var padded = [UInt8](repeating: 0, count: stride * image.height)
        for y in 0..<image.height {
            for x in 0..<image.width { padded[y * stride + x] = image[x, y] }
        }
        let results = try padded.withUnsafeBufferPointer { buffer in
            try BarcodeReader().read(ImageView(width: image.width, height: image.height, rowStride: stride, pixels: buffer))
        }
        XCTAssertEqual(results.first?.text, "PO-2026-00042")
    }

    func testPlanPutsCheapPassesFirstAndRotationsOnlyForLinearFormats() {
        // With only QR read, edge's own QR reader comes first (QRDirectReaderTests), with only
        // EAN-13 its line reader (EAN13LineReaderTests); zbar's passes are in the order asserted here.
        func zbarPlan(width: Int, height: Int, formats: Set<BarcodeFormat>, narrowRun: Int? = nil) -> [ScanPass] {
            let plan = BarcodeReader.plan(width: width, height: height, formats: formats, narrowRun: narrowRun)
            XCTAssertEqual(plan.first?.decoder == .qrDirect, formats == [.qr], "\(formats)")
            XCTAssertEqual(plan.first == ScanPass(lines: .sparse, decoder: .eanLines), formats == [.ean13], "\(formats)")
            return plan.filter { $0.decoder != .qrDirect && $0 != ScanPass(lines: .sparse, decoder: .eanLines) }
        }
        let qr = zbarPlan(width: 640, height: 480, formats: [.qr])
        XCTAssertEqual(Array(qr.prefix(2)), [ScanPass(lines: .sparse), .plain])
        XCTAssertEqual(zbarPlan(width: 160, height: 47, formats: [.qr]).first, .plain, "tiny images start with the full scan")
        XCTAssertEqual(zbarPlan(width: 160, height: 48, formats: [.qr]).first, ScanPass(lines: .sparse))
        // Without QR the first pass scans only across the bars, sparsely when the image is large enough.
        XCTAssertEqual(Array(zbarPlan(width: 640, height: 480, formats: [.ean13, .code128]).prefix(2)), [ScanPass(lines: .sparseAcrossBars), .plain])
        XCTAssertEqual(Array(zbarPlan(width: 400, height: 120, formats: [.code39]).prefix(2)), [ScanPass(lines: .sparseAcrossBars), .plain])
        XCTAssertEqual(Array(zbarPlan(width: 400, height: 40, formats: [.code39]).prefix(2)), [ScanPass(lines: .acrossBars), .plain])
        // Modules of 6 px or more are read at half size first.
        XCTAssertEqual(zbarPlan(width: 640, height: 480, formats: [.qr], narrowRun: 6).first, ScanPass([.downscale(2)], lines: .sparse))
        XCTAssertEqual(zbarPlan(width: 640, height: 480, formats: [.ean13], narrowRun: 9).first, ScanPass([.downscale(2)], lines: .sparseAcrossBars))
        // Modules of 4-5 px are read at two thirds first when QR is requested, then sparsely at full size.
        for narrowRun in [4, 5] {
            XCTAssertEqual(Array(zbarPlan(width: 640, height: 480, formats: [.qr], narrowRun: narrowRun).prefix(2)),
                           [ScanPass([.downscaleThreeHalves], lines: .sparse), ScanPass(lines: .sparse)])
        }
        XCTAssertEqual(zbarPlan(width: 640, height: 480, formats: [.qr], narrowRun: 3).first, ScanPass(lines: .sparse))
        XCTAssertEqual(zbarPlan(width: 640, height: 149, formats: [.qr], narrowRun: 5).first, ScanPass(lines: .sparse), "not below 150 px")
        XCTAssertEqual(zbarPlan(width: 640, height: 480, formats: [.ean13], narrowRun: 3).first, ScanPass(lines: .sparseAcrossBars))
        // Bars of 4-5 px likewise at two thirds when the short side stays 48 px or more there.
        for narrowRun in [4, 5] {
            XCTAssertEqual(Array(zbarPlan(width: 640, height: 480, formats: [.ean13], narrowRun: narrowRun).prefix(2)),
                           [ScanPass([.downscaleThreeHalves], lines: .sparseAcrossBars), ScanPass(lines: .sparseAcrossBars)])
        }
        XCTAssertEqual(zbarPlan(width: 640, height: 71, formats: [.code128], narrowRun: 4).first, ScanPass(lines: .sparseAcrossBars), "not below 72 px")
        XCTAssertFalse(qr.contains { $0.transforms.contains { if case .rotate = $0 { true } else { false } } })
        let all = zbarPlan(width: 640, height: 480, formats: Set(BarcodeFormat.allCases))
        XCTAssertTrue(all.contains { $0.transforms.contains(.rotate(45)) })
        let huge = zbarPlan(width: 6000, height: 4000, formats: [.qr])
        XCTAssertEqual(huge.first, ScanPass([.downscale(4)]))
    }

    func testALinearOnlyReadScansAcrossTheBarsFirstWhicheverWayTheyLie() throws {
        let ean = try Encoders.zint(["-b", "13", "--scale=2", "--quietzones", "-d", "400638133393"])
        let lying = try ean.withView { try $0.rotated(degrees: 90) }.image
        let reader = try BarcodeReader(options: ReaderOptions(formats: [.ean13, .code128], timeBudget: unlimited))
        for image in [ean, lying] {
            let results = try reader.read(image)
            XCTAssertEqual(results.map(\.text), ["4006381333931"])
            // zint's 4 px bars are read at two thirds first; across the bars either way.
            XCTAssertEqual(results.first?.pass, ScanPass([.downscaleThreeHalves], lines: .sparseAcrossBars))
        }
        // A pass of `acrossBars` alone adds nothing where the edges go both ways: it is skipped
        // and the next pass reads.
        let qr = try XCTUnwrap(Encoders.qrencode(["-s", "3"], "AB-7KX-M4PQR").first)
        let skipping = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [ScanPass(lines: .acrossBars), .plain], maxPasses: 2))
        XCTAssertEqual(try skipping.read(qr).map(\.pass), [.plain])
    }

    func testTheSameImageGetsTheSameAnswerWhateverWasReadBefore() throws {
        // zbar's QR decoder fits the code's edges to points it picks at random, from a generator
        // seeded once per zbar scanner. Fixtures/noisy-perspective-qr.png (qrencode -s 4, warped,
        // blurred and noised with Pillow) is one where the pick matters: with a zbar scanner kept
        // across reads, every other read put one corner 1-2 px elsewhere (this test failed in
        // rounds 1, 2, 3 and 5 before each read got a fresh scanner).
        let image = try ImageLoader.load(path: TestImages.fixture("noisy-perspective-qr.png"))
        let other = try XCTUnwrap(Encoders.qrencode(["-s", "4"], "AB-7KX-M4PQR").first)
        func answer(_ results: [ScanResult]) -> [String] { results.map { "\($0.text) \($0.pass) \($0.points)" } }
        let fresh = answer(try BarcodeReader(options: ReaderOptions(formats: [.qr])).read(image))
        XCTAssertEqual(fresh.count, 1)
        let reader = try BarcodeReader(options: ReaderOptions(formats: [.qr]))
        for round in 0..<12 {
            XCTAssertEqual(answer(try reader.read(image)), fresh, "round \(round)")
            _ = try reader.read(other)
        }
    }

    func testAQRCodePrintedInsideAQRCodeIsReadToo() throws {
        // A "double QR" like qrcode-2/16.png of the development photos: an inner code printed over
        // the middle of a level-H outer code at 3/8 of its module size, the whole shrunk by 2
        // (inner modules 1.5 px). zbar reads the outer code and, at this size, not the inner one.
        let outerText = "https://example.com/edge/outer-code", innerText = "PO-2026-00042"
        var double = try XCTUnwrap(Encoders.qrencode(["-l", "H", "-s", "8", "-m", "4"], outerText).first)
        let inner = try XCTUnwrap(Encoders.qrencode(["-s", "3", "-m", "2"], innerText).first)
        let at = (double.width - inner.width) / 2
        for y in 0..<inner.height {
            for x in 0..<inner.width { double.pixels[(at + y) * double.rowStride + at + x] = inner.pixels[y * inner.rowStride + x] }
        }
        let image = try double.withView { try $0.downscaled(by: 2) }
        let zbarAlone = try ZbarScanner(formats: [.qr], addOns: false).scan(image).map { String(decoding: $0.data, as: UTF8.self) }
        XCTAssertEqual(zbarAlone, [outerText])

        let results = try BarcodeReader(options: ReaderOptions(formats: [.qr], timeBudget: unlimited)).read(image)
        XCTAssertEqual(results.map(\.text), [outerText, innerText])
        // The inner code is reported where it is, in the image's own coordinates.
        let low = at / 2 - 2, high = (at + inner.width) / 2 + 2
        XCTAssertEqual(results.last?.points.count, 4, "the inner code's corners")
        for point in results.last?.points ?? [] {
            XCTAssert((low...high).contains(point.x) && (low...high).contains(point.y), "\(point) outside \(low)...\(high)")
        }
        // The code's own box opens the enlarged read; plain codes of every module size from 3 px
        // do not (1 and 2 px modules cannot hold a readable inner code and are never tried).
        let outerBox = try XCTUnwrap(results.first?.points)
        let x0 = outerBox.map(\.x).min() ?? 0, y0 = outerBox.map(\.y).min() ?? 0
        let box = image.withView { $0.cropped(x: x0, y: y0, width: (outerBox.map(\.x).max() ?? 0) - x0, height: (outerBox.map(\.y).max() ?? 0) - y0) }
        XCTAssertNotNil(box.withView { BarcodeReader.innerCodeEnlargement(of: $0) })
        for size in 3...10 {
            let plain = try XCTUnwrap(Encoders.qrencode(["-l", "H", "-s", "\(size)", "-m", "0"], outerText).first)
            XCTAssertNil(plain.withView { BarcodeReader.innerCodeEnlargement(of: $0) }, "\(size) px modules")
        }
    }

    func testConflictingReadsOfOneBarcodeKeepTheBetterSupported() {
        func r(_ text: String, _ q: Int, y: Int) -> ScanResult {
            ScanResult(format: .ean13, text: text, bytes: Array(text.utf8), encoding: "ascii",
                       points: [ScanPoint(x: 10, y: y), ScanPoint(x: 200, y: y)], orientation: .up, quality: q, pass: .plain, addOn: nil)
        }
        let kept = BarcodeReader.resolveConflicts([r("5000213002834", 3, y: 50), r("1040183002834", 40, y: 52), r("4006381333931", 9, y: 400)])
        XCTAssertEqual(kept.map(\.text), ["1040183002834", "4006381333931"])
        // A misread on a scan line further down the same 190 px wide barcode is still the same code.
        let lower = BarcodeReader.resolveConflicts([r("9780201752847", 49, y: 10), r("1190208758847", 6, y: 50)])
        XCTAssertEqual(lower.map(\.text), ["9780201752847"])
        // The same read twice, exactly (the nested-code read finds the outer code again, with the
        // same corners when both reads saw the same pixels): one code.
        let twice = BarcodeReader.resolveConflicts([r("4006381333931", 9, y: 400), r("9780201752847", 49, y: 10), r("4006381333931", 9, y: 400)])
        XCTAssertEqual(twice.map(\.text), ["4006381333931", "9780201752847"])
    }

    func testQRFilledWithSpeckleIsReadAfterAnOpening() throws {
        // qrencode's code with light speckle over its dark modules (a picture or texture fill):
        // zbar's finder search sees broken patterns until erode+dilate clears the speckle.
        var image = try XCTUnwrap(Encoders.qrencode(["-s", "8"], "AB-7KX-M4PQR").first)
        var state: UInt32 = 12345
        for i in image.pixels.indices where image.pixels[i] < 128 {
            state = state &* 1_664_525 &+ 1_013_904_223
            if state >> 24 < 90 { image.pixels[i] = 255 }
        }
        XCTAssertEqual(try BarcodeReader(options: .plainOnly(formats: [.qr])).read(image), [])
        let opened = try BarcodeReader(options: ReaderOptions(formats: [.qr], passes: [.plain, ScanPass([.erode, .dilate])])).read(image)
        XCTAssertEqual(opened.map(\.text), ["AB-7KX-M4PQR"])
        XCTAssertEqual(opened.first?.pass.description, "erode+dilate")
        XCTAssertTrue(BarcodeReader.plan(width: image.width, height: image.height, formats: [.qr]).contains(ScanPass([.erode, .dilate])))
    }

    func testCode128ExtendedCharactersComeThroughTheReaderAsLatin1() throws {
        let image = try Encoders.zint(["-b", "20", "--quietzones", "-d", "Grüße 123"])
        let result = try XCTUnwrap(try BarcodeReader(options: ReaderOptions(formats: [.code128])).read(image).first)
        XCTAssertEqual(result.text, "Grüße 123")
        XCTAssertEqual(result.encoding, "iso-8859-1")
        XCTAssertEqual(result.bytes, [0x47, 0x72, 0xFC, 0xDF, 0x65, 0x20, 0x31, 0x32, 0x33])
    }

}
