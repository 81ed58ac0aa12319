import CZbar
import EdgeImaging

/// The scan pipeline: zbar plus the passes around it that earn what zbar alone misses (SCN-4).
///
/// Passes run cheapest first and the reader stops after the first pass that yields a valid code,
/// or when the pass count or time budget is spent. Not thread-safe (it keeps the camera preset's
/// frame history): use one reader per task or thread.
public final class BarcodeReader {
    public let options: ReaderOptions
    /// The camera preset's frame history (`ReaderOptions.wholeFrameInterval`).
    private var schedule = WholeFrameSchedule()

    public init(options: ReaderOptions = ReaderOptions()) throws(ScanError) {
        guard !options.formats.isEmpty else {
            throw ScanError(.unknownSymbology, "no symbology enabled")
        }
        self.options = options
        // Made here once so a reader that zbar cannot serve fails at creation, not at its first frame.
        _ = try ZbarScanner(formats: options.formats, addOns: options.eanAddOns, density: Int32(options.scanDensity))
    }

    /// Reads every code the first successful pass finds in `view`.
    ///
    /// Bounded work (SCN-10): every pass computes the size of each image it derives before
    /// allocating and is not run when that exceeds `options.maxPixels`; a pass still running at
    /// `options.effectiveTimeLimit` is abandoned and ends the read. When no pass found a code
    /// and a pass was refused for its size, the read throws `.passTooLarge` naming it, so the
    /// caller reports that file with a reason instead of a bare "no code".
    public func read(_ view: ImageView) throws(ScanError) -> [ScanResult] {
        try read(view, arrivedAt: ContinuousClock.now)
    }

    public func read(_ image: GrayImage) throws(ScanError) -> [ScanResult] {
        try image.withView { (view) throws(ScanError) in try read(view) }
    }

    /// `read(_:)` with the frame's arrival time given: what `wholeFrameInterval` measures (tests
    /// give a sequence of frame times instead of sleeping).
    func read(_ view: ImageView, arrivedAt arrival: ContinuousClock.Instant) throws(ScanError) -> [ScanResult] {
        let clock = ContinuousClock()
        let start = clock.now
        var state = ReadState(view, options: options, deadline: start + options.effectiveTimeLimit)
        // When the plan starts with one of edge's own readers (`readsDirectFirst`), which need no
        // module estimate, the estimate (a twentieth of a clean QR photo's read) is made only once
        // that pass read nothing.
        let directFirst = options.passes == nil && Self.readsDirectFirst(options.formats, addOns: options.eanAddOns)
        var passes = options.passes ?? (directFirst ? Array(Self.plan(width: view.width, height: view.height, formats: options.formats,
                                                                      addOns: options.eanAddOns).prefix(1))
                                                    : Self.plan(for: view, formats: options.formats, addOns: options.eanAddOns))
        let frame = schedule.arrived(view, at: arrival, watchingScene: options.wholeFrameInterval != nil)
        var refused: [(pass: ScanPass, error: TransformError)] = []
        var regionsReadNothing = false
        var index = -1
        passLoop: while true {
            index += 1
            if directFirst && index == 1 { passes = Self.plan(for: view, formats: options.formats, addOns: options.eanAddOns) }
            guard index < passes.count else { break }
            let pass = passes[index]
            if index >= options.maxPasses || (index > 0 && clock.now - start > options.timeBudget) { break }
            // The camera preset's whole-frame passes after an empty regions pass run only when due
            // (the shrunk one every `wholeFrameInterval`, the full-resolution one every
            // `fullFrameInterval`, on a frame where the shrunk one ran and read nothing); the
            // passes after one that waits, wait too.
            if regionsReadNothing && pass.isWholeFrameScan, let interval = options.wholeFrameInterval,
               !schedule.due(pass, on: frame, interval: pass.transforms.isEmpty ? options.fullFrameInterval ?? interval : interval) { break }
            switch try run(pass, &state) {
            case .found(let results): return results
            case .readNothing: if pass.region == .regions { regionsReadNothing = true }
            case .skipped: continue
            // Skipped with its reason; a later, cheaper-shaped pass may still read.
            case .refused(let error): refused.append((pass, error))
            // The hard time limit: no later pass would be allowed to start either.
            case .outOfTime: break passLoop
            }
        }
        if let first = refused.first {
            throw Self.refusal(first.pass, first.error, others: refused.dropFirst().map(\.pass), view: view)
        }
        return []
    }

    /// One pass: its images scanned by its decoder, the reads validated; for a rectify pass whose
    /// warps zbar read nothing from, edge's own reading of their modules.
    private func run(_ pass: ScanPass, _ state: inout ReadState) throws(ScanError) -> PassOutcome {
        guard pass.decoder.reads(any: options.formats) else { return .skipped }
        var images: [PassImage] = []
        let scans: [Scan]?
        if pass.transformsImage {
            do throws(TransformError) {
                images = try state.images(for: pass)
            } catch {
                switch error.code {
                case .outOfTime: return .outOfTime
                case .tooLarge, .badParameter: return .refused(error)
                }
            }
            scans = try scan(images, pass: pass, state)
        } else {
            let lines = pass.lines.scanLines(in: state.view)
            // An across-bars pass that cannot narrow the lines would repeat the plain pass.
            if lines == .both && pass == ScanPass(lines: .acrossBars) { return .skipped }
            scans = try decode(state.view, lines: lines, pass: pass, state, map: .identity).map { [$0] }
        }
        guard let scans else { return .outOfTime }
        let results = self.results(of: scans, pass: pass)
        if !results.isEmpty {
            return .found(Self.resolveConflicts(results + (try nestedQR(around: results, pass: pass, state))))
        }
        if pass.region == .rectify, let finished = moduleReads(images, pass: pass, state) { return .found(finished) }
        return .readNothing
    }

    /// Each of a pass's images through its decoder; nil once the hard time limit has passed.
    ///
    /// The rectifier warps each finder triple up to 21 ways (`QRRectifier.candidates`); once one
    /// warp of a triple reads a QR code, its others would read the same code again (the first
    /// read is the one reported either way), so they are not scanned. Other triples still are:
    /// they may be other codes. Measured on the development photos that zbar reads rectified: the
    /// first read came at warp 3 of 17, 20 of 34 and 1 of 51, and the rectify pass alone took
    /// 5-19 ms instead of 11-36.
    private func scan(_ images: [PassImage], pass: ScanPass, _ state: ReadState) throws(ScanError) -> [Scan]? {
        var scans: [Scan] = []
        var readTriples = Set<Int>()
        for made in images {
            if let triple = made.triple, readTriples.contains(triple) { continue }
            guard let scan = try made.image.withView({ (v) throws(ScanError) in try decode(v, lines: made.lines, pass: pass, state, map: made.map) })
            else { return nil }
            scans.append(scan)
            if let triple = made.triple, !scan.direct.isEmpty || scan.symbols.contains(where: { result(from: $0, pass: pass, map: made.map)?.format == .qr }) {
                readTriples.insert(triple)
            }
        }
        return scans
    }

    /// One image through the pass's decoder: zbar at the pass's density on `lines`, or edge's own
    /// EAN-13 or QR readers (nil once the hard time limit has passed). `map` takes the image's
    /// points back to the caller's.
    private func decode(_ image: ImageView, lines: ScanLines, pass: ScanPass, _ state: ReadState, map: PointMap) throws(ScanError) -> Scan? {
        let symbols: [ZbarSymbol]?
        switch pass.decoder {
        case .zbar:
            let zbar = try state.zbar.scanner()
            zbar.setDensity(Int32(pass.lines.zbarDensity(options.scanDensity)), lines: lines)
            symbols = restoringFNC4(try zbar.scan(image), in: image)
        case .eanLines: symbols = try? EAN13LineReader.read(image, budget: state.budget, method: .edges, sparse: pass.lines.sparse)
        case .eanModel: symbols = try? EAN13LineReader.read(image, budget: state.budget, method: .model)
        case .qrDirect:
            guard let codes = try? QRDirectReader.read(image, budget: state.budget) else { return nil }
            return Scan(direct: codes, map: map)
        }
        return symbols.map { Scan(symbols: $0, map: map) }
    }

    /// The valid reads of a pass's scans in the caller's coordinates, one per physical code; 1D
    /// reads only from a pass that keeps bar widths (`ScanPass.trustsLinearReads`).
    private func results(of scans: [Scan], pass: ScanPass) -> [ScanResult] {
        let trustLinear = pass.trustsLinearReads
        return Self.resolveConflicts(scans.flatMap { scan in
            scan.symbols.compactMap { result(from: $0, pass: pass, map: scan.map) }
                + scan.direct.map { qrResult($0.content, corners: $0.corners.map { scan.map.point($0.x, $0.y) }, orientation: $0.orientation, pass: pass) }
        }.filter { trustLinear || !$0.format.isLinear })
    }

    /// A rectify pass's warps that zbar read nothing from, read by edge from their modules
    /// (`moduleRead`), else, for a code no warp stands flat, along its alignment patterns
    /// (`bentRead`); nil when neither reads.
    private func moduleReads(_ warps: [PassImage], pass: ScanPass, _ state: ReadState) -> [ScanResult]? {
        guard !warps.isEmpty && options.formats.contains(.qr) else { return nil }
        var finished: [ScanResult] = []
        for warp in warps {
            // Each grid costs up to 3 x 177 x 177 samples and the Reed-Solomon blocks: the hard
            // time limit holds here too.
            guard (try? state.budget.checkTime(for: "rectify: reading modules")) != nil else { break }
            if let read = moduleRead(warp.image, map: warp.map, pass: pass) { finished.append(read) }
        }
        finished = Self.resolveConflicts(finished)
        if !finished.isEmpty { return finished }
        return bentRead(state.view, warps: warps, pass: pass, budget: state.budget).map { [$0] }
    }

    /// The per-file error for passes refused by the pixel budget: names the first one, what it
    /// would have made and the limit, and how many others were refused.
    static func refusal(_ pass: ScanPass, _ error: TransformError, others: [ScanPass], view: ImageView) -> ScanError {
        var message = "no code found; pass \(pass) was not run on this \(view.width) x \(view.height) image: \(error.message)"
        if !others.isEmpty {
            message += " (\(others.count) more pass\(others.count == 1 ? "" : "es") refused: \(others.map(\.description).joined(separator: ", ")))"
        }
        var context = error.context
        context["pass"] = pass.description
        context["reason"] = error.code.rawValue
        context["refusedPasses"] = ([pass] + others).map(\.description).joined(separator: ",")
        let code: ScanErrorCode = error.code == .tooLarge ? .passTooLarge : .unknownPass
        return ScanError(code, message, context: context)
    }

    /// Long side up to which the plan reads an image at its own size first; larger ones are
    /// shrunk to it.
    static let largestUnshrunk = 1600

    /// The plan for `view`, with its module size (`ModuleEstimate`) when it is read unshrunk first.
    static func plan(for view: ImageView, formats: Set<BarcodeFormat>, addOns: Bool = false) -> [ScanPass] {
        let narrowRun = max(view.width, view.height) <= largestUnshrunk ? ModuleEstimate.narrowRun(in: view) : nil
        return plan(width: view.width, height: view.height, formats: formats, addOns: addOns, narrowRun: narrowRun)
    }

    /// The default pass plan for an image of this size and these formats, cheapest first
    /// (`addOns`: EAN add-ons are read too); `narrowRun` is the image's `ModuleEstimate`, when known.
    ///
    /// Decisions, from measurements on the development photographs (Benchmarks/):
    /// - When only QR is read, edge's own QR reader comes first (`QRDirectReader`): on the 82
    ///   QR tests of the development photos it read 65, in 0.02-0.2 ms for most, where zbar's
    ///   cheapest pass took 0.2-0.6 ms; what it does not read costs it a few hundredths of a
    ///   millisecond before the zbar passes (issue #32). The module estimate below is then made
    ///   only when it read nothing (`read`). With 1D symbologies too it comes after the first
    ///   zbar scan, which reads all of a label sheet's codes at once.
    /// - When only EAN-13 is read (and no add-on), edge's own EAN-13 reader on 21 rows (then
    ///   columns) comes first (`EAN13LineReader`, `sparse`): of the 37 EAN-13 photos of the
    ///   development set it reads 22, with the text zbar's passes read, in a median 0.06 ms where
    ///   those passes took 0.22 (issue #32). What it leaves (two labels, a doubtful one, bars
    ///   without quiet zones) goes on to zbar's passes 0.03-0.18 ms later.
    /// - Very large photos are first read shrunk, long side to about 1600 px (zbar's time grows
    ///   with pixels, and print noise at full resolution breaks its edge detector), then at full size.
    /// - Modules of 6 px or more are still 3 px at half size, where a sparse scan costs an eighth
    ///   of the full one: this pass read all 11 QR photos with such modules, in 30-56% of the
    ///   sparse pass's time; with the bound at 5 px it missed four that the sparse pass reads.
    /// - QR modules of 4-5 px are 2.7-3.3 px at two thirds, where the sparse scan costs 44% of the
    ///   full-size one: zbar's QR finder needs about every second line through a finder's centre
    ///   at any module size (its clusters want lines in proportion to the finder's width), so a
    ///   coarser density cannot do this, only fewer pixels can. On the photos with such modules
    ///   that the sparse pass reads (issue #15) it read 14 of 17, in about half the time; the other
    ///   3 (read by the sparse pass after it) took 1.4-2 times as long. With 3 px modules (2 px at
    ///   two thirds) it missed 8 of 14.
    /// - A clean label (what `edge scan` mostly sees) is read at half the cost scanning every
    ///   second line; zbar's time is mostly its per-pixel scan (SCN-12). From a 48 px short side:
    ///   the sparse pass read 11 of the 12 QR photos with a short side of 150-199 px that the full
    ///   one reads, and 11 of 17 below that; there a miss costs little (zbar finds too few finder
    ///   lines to start decoding: 0.07-0.28 ms) beside what a read saves (0.04-0.42 ms), 1.1 ms
    ///   less over those 17 photos (issue #15; small images used to start with the full scan).
    /// - The same for 1D codes with 4-5 px bars, from a 72 px short side (48 px at two thirds):
    ///   on the development photos with such bars it read 9 of 13 first, in 28-71% of the time
    ///   of the full-size across-bars pass; the other 4 took 1.2-2.1 times as long, read after it
    ///   by that pass (issue #32).
    /// - Without QR (whose finder patterns need rows and columns) the first pass scans only the
    ///   lines that cross the bars, when the image shows which (`ScanPass.Lines.acrossBars`),
    ///   every third one from a 48 px short side (16 lines): bars are tall. On the 1D photos with
    ///   a short side under 150 px it read the 9 the full-density pass read first, in 1.7-6.7
    ///   times less time, and two more (ean13-1/20, ean13-1/29) that pass missed.
    /// - Inversion comes early because it costs one pass and light-on-dark labels exist for 1D
    ///   codes too (printed on dark stock, shown on screens), whatever the formats (issue #15: an
    ///   inverted Code 128 was never read when QR was not requested); light-on-dark QR codes
    ///   (dark-mode screens) also get the binarisation dark-on-light ones get.
    /// - A tight crop's dark frame where a 1D code's quiet zones should be is whitened (`clearBorder`).
    /// - Tiny images are enlarged (zbar needs several pixels per QR module).
    /// - QR codes filled with a picture or texture are opened (erode, dilate) to clear the speckle;
    ///   QR codes at a steep angle are rectified from their finder patterns (`QRRectifier`).
    /// - EAN-13 bars that zbar's decoder gives up on (curved, jagged) are read by edge's own line
    ///   reader (`EAN13LineReader`): a few milliseconds over every second line, before the rotations.
    /// - Rotations run only when a 1D format is enabled, on a shrunk copy of large images.
    /// - Last, EAN-13 bars blurred past their edges, by fitting blurred characters
    ///   (`EAN13ModelReader`): tens of milliseconds on a photo, spent only when nothing else read.
    public static func plan(width: Int, height: Int, formats: Set<BarcodeFormat>, addOns: Bool = false, narrowRun: Int? = nil) -> [ScanPass] {
        let longSide = max(width, height), shortSide = min(width, height)
        let qr = formats.contains(.qr), linear = formats.contains(where: \.isLinear), ean = formats.contains(.ean13)
        let shrink = max(1, Int((Double(longSide) / Double(largestUnshrunk)).rounded(.up)))
        let module = narrowRun ?? 0
        var plan: [ScanPass] = []
        func add(_ pass: ScanPass, if condition: Bool = true) { if condition { plan.append(pass) } }
        // edge's own QR reader first when only QR is read: on a clean QR photo it costs a
        // fraction of any zbar scan. A very large photo is read shrunk, like zbar's first scan:
        // its work grows with the pixels. Its EAN-13 reader on a few lines when only EAN-13 is:
        // its work grows with the sides only.
        let direct = ScanPass(shrink > 1 ? [.downscale(shrink)] : [], decoder: .qrDirect)
        add(direct, if: readsDirectFirst(formats, addOns: addOns) && qr)
        add(ScanPass(lines: .sparse, decoder: .eanLines), if: readsDirectFirst(formats, addOns: addOns) && ean)
        // The cheap first scans: shrunk, sparse, across the bars.
        add(ScanPass([.downscale(shrink)]), if: shrink > 1)
        add(ScanPass([.downscale(2)], lines: qr ? .sparse : .sparseAcrossBars), if: shrink == 1 && module >= 6)
        add(ScanPass([.downscaleThreeHalves], lines: .sparse), if: shrink == 1 && qr && shortSide >= 150 && (4...5).contains(module))
        add(ScanPass([.downscaleThreeHalves], lines: .sparseAcrossBars), if: shrink == 1 && !qr && shortSide >= 72 && (4...5).contains(module))
        add(ScanPass(lines: .sparse), if: shrink == 1 && qr && shortSide >= 48)
        add(ScanPass(lines: shortSide >= 48 ? .sparseAcrossBars : .acrossBars), if: shrink == 1 && !qr)
        // With 1D symbologies too, after the first zbar scan, which reads every symbology at once
        // (a label sheet's QR code and barcodes in one pass; a pass that reads ends the read).
        add(direct, if: qr && linear)
        // Every line, then the image fixes, cheapest first.
        add(.plain)
        add(ScanPass([.invert]))
        add(ScanPass([.pad(10)]))
        add(ScanPass([.clearBorder]), if: linear)
        add(ScanPass([.sharpen]))
        add(ScanPass([.blur]))
        add(ScanPass([.binarize]))
        add(ScanPass([.blur, .binarize]))
        add(ScanPass([.invert, .binarize]), if: qr)
        add(ScanPass([.downscale(2)]), if: shrink == 1 && longSide >= 400)
        add(ScanPass([.upscale(2), .pad(10)]), if: longSide <= 1000)
        add(ScanPass([.upscale(2), .binarize]), if: longSide <= 1000)
        add(ScanPass([.invert, .upscale(2)]), if: qr && longSide <= 1000)
        add(ScanPass([.upscale(3), .pad(10)]), if: longSide <= 500)
        add(ScanPass([.erode]), if: qr)
        add(ScanPass([.erode, .dilate]), if: qr)
        add(ScanPass(region: .rectify), if: qr)
        // edge's own readers and the rotations, for what zbar cannot read on any image above.
        add(ScanPass(decoder: .eanLines), if: ean)
        let shrunk: [ScanPass.Transform] = longSide > 1200 ? [.downscale(max(2, shrink))] : []
        for angle in [45, 30, 60, 15, 75] { add(ScanPass(shrunk + [.rotate(angle)]), if: linear) }
        add(ScanPass(decoder: .eanModel), if: ean)
        return plan
    }

    /// A rectified candidate that zbar read nothing from, read by edge from its modules
    /// (`QRModuleDecoder`): zbar has no Hanzi mode, and its finder-line clustering rejects codes
    /// with heavy ink bleed or no quiet zone that the rectifier still stood upright. The size the
    /// warp estimated from the finder spacing comes first; from version 7 on, where one module
    /// of error in that spacing is a version off, the neighbouring sizes too (the version blocks
    /// must then agree).
    private func moduleRead(_ image: GrayImage, map: PointMap, pass: ScanPass) -> ScanResult? {
        let estimated = QRRectifier.estimatedDimension(of: image)
        for dimension in estimated >= 45 ? [estimated, estimated - 4, estimated + 4] : [estimated] {
            guard let content = QRRectifier.modules(of: image, dimension: dimension)?.decode() else { continue }
            let near = QRRectifier.quiet * QRRectifier.scale, far = Double(image.width) - near
            let corners = [(near, near), (near, far), (far, far), (far, near)].map { map.point($0.0, $0.1) }
            return qrResult(content, corners: corners, orientation: .unknown, pass: pass)
        }
        return nil
    }

    /// QR codes printed inside a QR code just read (a "double QR": the outer code's error
    /// correction covers an inner code printed over its middle at a fraction of its module size).
    /// zbar does try the finder patterns it finds inside a code it decoded, but only in the image
    /// it was given, where the inner modules are often too small for it: qrcode-2/16.png has
    /// 2.6 px modules inside 8.6 px ones, and zbar reads the inner code only enlarged.
    ///
    /// So when at least a fifth of the runs in the middle half of a read QR code's box are at
    /// most half as wide as the box's narrow run (`ModuleEstimate`), and that is 4 px or more,
    /// the box is read again enlarged. Measured on the QR reads of the development photos: 0
    /// to 0.15 of such runs on the plain codes whose narrow run is 4 px or more (0.21 on two with
    /// 2-3 px runs, where the noise is a pixel wide), 0.34 on the double one, 0.24-0.27 on
    /// synthetic ones. Every QR read pays for the two estimates (every eighth line of its box);
    /// only an open gate pays for the enlarged read, which the reader's pixel and time limits
    /// bound like any pass. Inner codes are reported with the pass that read the outer one.
    private func nestedQR(around outer: [ScanResult], pass: ScanPass, _ state: ReadState) throws(ScanError) -> [ScanResult] {
        let view = state.view, budget = state.budget
        var found: [ScanResult] = []
        for code in outer where code.format == .qr {
            guard let minX = code.points.map(\.x).min(), let maxX = code.points.map(\.x).max(),
                  let minY = code.points.map(\.y).min(), let maxY = code.points.map(\.y).max() else { continue }
            let left = max(0, minX), top = max(0, minY), right = min(view.width, maxX), bottom = min(view.height, maxY)
            let width = right - left, height = bottom - top
            // An inner code with its quiet zone spans 25 modules or more, over the middle of the
            // outer code: below 64 px it would have modules under a pixel.
            guard min(width, height) >= 64 else { continue }
            let box = view.region(x: left, y: top, width: width, height: height)
            guard let factor = Self.innerCodeEnlargement(of: box),
                  (try? budget.checkTime(for: "reading inside a QR code")) != nil,
                  let enlarged = try? box.upscaled(by: factor, budget: budget) else { continue }
            let zbar = try state.zbar.scanner()
            zbar.setDensity(Int32(options.scanDensity), lines: .both)
            let map = PointMap.identity.after(.translate(left, top)).after(.scale(1 / Double(factor)))
            found += try zbar.scan(enlarged).compactMap { result(from: $0, pass: pass, map: map) }.filter { $0.format == .qr }
        }
        return found
    }

    /// The enlargement at which to read a QR code's box (2-4, to about 4 px per run of its
    /// middle) when its middle may hold an inner code (`nestedQR`), else nil.
    static func innerCodeEnlargement(of box: ImageView) -> Int? {
        let middle = box.region(x: box.width / 4, y: box.height / 4, width: box.width - box.width / 2, height: box.height - box.height / 2)
        guard let whole = ModuleEstimate.narrowRun(in: box), whole >= 4,
              let runs = ModuleEstimate.runLengths(in: middle),
              5 * runs[1...(whole / 2)].reduce(0, +) >= runs.reduce(0, +) else { return nil }
        let fine = max(1, ModuleEstimate.firstQuartile(runs))
        return min(4, max(2, (4 + fine - 1) / fine))
    }

    /// A large QR code on a bent surface, which no warp of the rectifier stands flat: sampled
    /// along its alignment patterns (`QRGridSampler`) from the finder centres of each warp, once
    /// per finder triple (the warps of one triple differ only in their fourth corner).
    /// The finder spacing gives the size to a version or two on a bent code (qrcode-2/high-res-1.jpg:
    /// estimated 145 modules, 153 by its version information), so the sizes up to 8 modules
    /// either side are tried, the estimate first; a wrong size finds too few alignment patterns
    /// to be sampled at all, and `QRModuleDecoder` checks the version information.
    private func bentRead(_ view: ImageView, warps: [PassImage], pass: ScanPass, budget: WorkBudget) -> ScanResult? {
        var tried: [[Int]] = []
        for candidate in warps {
            let estimated = QRRectifier.estimatedDimension(of: candidate.image)
            // From version 7 (45 modules) a code has an alignment grid to follow.
            guard estimated >= 41 else { continue }
            func source(_ mx: Double, _ my: Double) -> (x: Double, y: Double) {
                candidate.map.point((mx + QRRectifier.quiet) * QRRectifier.scale, (my + QRRectifier.quiet) * QRRectifier.scale)
            }
            let far = Double(estimated) - 3.5
            let corner = source(3.5, 3.5), right = source(far, 3.5), down = source(3.5, far)
            let key = [corner.x, corner.y, right.x, right.y, down.x, down.y].map { Int($0.rounded()) }
            if tried.contains(key) { continue }
            tried.append(key)
            for dimension in [estimated, estimated + 4, estimated - 4, estimated + 8, estimated - 8] where dimension >= 45 && dimension <= 177 {
                guard (try? budget.checkTime(for: "rectify: following alignment patterns")) != nil else { return nil }
                let sampler = QRGridSampler(view: view, corner: corner, right: right, down: down, dimension: dimension)
                guard let (grid, nodes) = sampler.modules(budget: budget), let content = grid.decode() else { continue }
                let d = Double(dimension)
                let corners = [(0.0, 0.0), (0, d), (d, d), (d, 0)].map { nodes.position($0.0, $0.1) }
                guard corners.allSatisfy({ abs($0.x) < 1e9 && abs($0.y) < 1e9 }) else { continue }
                return qrResult(content, corners: corners, orientation: .unknown, pass: pass)
            }
        }
        return nil
    }

    /// Whether the plan starts with one of edge's own readers: its QR reader when QR is the only
    /// kind of code read, its EAN-13 line reader on a few lines when EAN-13 is the only one and
    /// no add-on is wanted (it reads none).
    static func readsDirectFirst(_ formats: Set<BarcodeFormat>, addOns: Bool) -> Bool {
        formats == [.qr] || (formats == [.ean13] && !addOns)
    }

    /// A QR code edge read from its modules (not zbar), with its text as `QRSegments` decoded it
    /// (the character sets its ECI designators name, which zbar drops), at the quality zbar gives
    /// every QR code.
    private func qrResult(_ content: QRModuleDecoder.Content, corners: [(x: Double, y: Double)], orientation: SymbolOrientation,
                          pass: ScanPass) -> ScanResult {
        let points = corners.map { ScanPoint(x: Int($0.x.rounded()), y: Int($0.y.rounded())) }
        return ScanResult(format: .qr, text: content.text, bytes: content.bytes, encoding: content.encoding, points: points,
                          orientation: orientation, quality: 1, pass: pass, addOn: nil, partialSequence: content.structuredAppend, gs1: content.gs1)
    }

    /// zbar drops Code 128's FNC4, so characters above 0x7F lose their high bit; each Code 128
    /// read is re-read from the pixels of the image zbar scanned, along its own scan lines, and
    /// takes the extended characters when the re-read agrees with zbar (`Code128Extended`).
    private func restoringFNC4(_ symbols: [ZbarSymbol], in view: ImageView) -> [ZbarSymbol] {
        guard options.formats.contains(.code128) else { return symbols }
        return symbols.map { symbol in
            guard symbol.type == ZBAR_CODE128,
                  let extended = Code128Extended.extendedBytes(zbarBytes: symbol.data, points: symbol.points, in: view) else { return symbol }
            var restored = symbol
            restored.data = extended
            return restored
        }
    }

    /// Keeps one result per physical code. zbar can decode the same blurred EAN two ways on
    /// different scan lines (both with valid check digits): the reading more lines agreed on
    /// wins. A pass that scans several candidate images (rectification) can read one code more
    /// than once: the copies are dropped.
    static func resolveConflicts(_ results: [ScanResult]) -> [ScanResult] {
        // Kept by position, not by value: a read repeated exactly (the same code found again with
        // the same corners, as the nested-code read can) is one code, reported once.
        var kept: [Int] = []
        let byQuality = results.indices.sorted { (results[$0].quality, $1) > (results[$1].quality, $0) }
        for i in byQuality {
            let r = results[i]
            let clash = kept.contains { k in
                results[k].format == r.format && (results[k].bytes == r.bytes || r.format.isLinear) && overlaps(results[k].points, r.points)
            }
            if clash { continue }
            kept.append(i)
        }
        // Report in zbar's order (top-to-bottom scan order), not by quality.
        return kept.sorted().map { results[$0] }
    }

    /// Do two reads come from the same physical code? Their boxes, each grown by a quarter of
    /// its longer side, meet. 1D scan points are lines through the bars, so a misread on a row
    /// further down the same barcode lies outside the good read's box but within that margin.
    /// Decision: two different 1D codes printed closer than a quarter of their length count as
    /// one and only the better-supported is reported; a missed second code costs a rescan, a
    /// wrong GTIN on a goods receipt costs more.
    private static func overlaps(_ a: [ScanPoint], _ b: [ScanPoint]) -> Bool {
        guard let ax0 = a.map(\.x).min(), let ax1 = a.map(\.x).max(), let ay0 = a.map(\.y).min(), let ay1 = a.map(\.y).max(),
              let bx0 = b.map(\.x).min(), let bx1 = b.map(\.x).max(), let by0 = b.map(\.y).min(), let by1 = b.map(\.y).max()
        else { return false }
        let slack = max(8, max(ax1 - ax0, ay1 - ay0, bx1 - bx0, by1 - by0) / 4)
        return ax0 - slack <= bx1 && bx0 - slack <= ax1 && ay0 - slack <= by1 && by0 - slack <= ay1
    }

    /// Validates and converts one zbar symbol; nil when it fails a check (SCN-5).
    private func result(from symbol: ZbarSymbol, pass: ScanPass, map: PointMap) -> ScanResult? {
        guard var format = BarcodeFormat(zbarType: symbol.type) else { return nil }
        var bytes = symbol.data
        // Code 32 is printed in Code 39; a valid one is reported as Code 32 only (`Code32`).
        let pharmacode = format == .code39 && options.formats.contains(.code32) ? Code32.decode(bytes) : nil
        if pharmacode != nil { format = .code32 }
        guard options.formats.contains(format) else { return nil }
        let text: String
        let encoding: String
        switch format {
        case .qr:
            let decoded = QRTextDecoder.decode(bytes)
            text = decoded.text
            encoding = decoded.encoding
        case .ean13:
            // zbar checks the EAN check digit already; checking again costs nothing and guards
            // against a misread sneaking through a transformed pass.
            guard CheckDigits.isValidEAN13(bytes) else { return nil }
            text = String(decoding: bytes, as: UTF8.self)
            encoding = "ascii"
        case .code32:
            text = String(decoding: pharmacode ?? bytes, as: UTF8.self)
            encoding = "ascii"
        case .code39:
            if options.code39CheckDigit == .required {
                guard bytes.count >= 2, let last = bytes.last, CheckDigits.code39Mod43(bytes.dropLast()) == last else { return nil }
                bytes.removeLast()
            }
            // `bytes` keep the symbol characters; `text` is the Full ASCII reading when it applies.
            var decoded: [UInt8]?
            switch options.code39FullASCII {
            case .raw: decoded = nil
            case .auto: decoded = Code39FullASCII.hasShift(bytes) ? Code39FullASCII.decode(bytes) : nil
            case .always:
                guard let full = Code39FullASCII.decode(bytes) else { return nil }
                decoded = full
            }
            text = String(decoding: decoded ?? bytes, as: UTF8.self)
            encoding = "ascii"
        case .code128:
            // Code 128's mod-103 check symbol is mandatory and verified inside zbar's decoder,
            // which does not hand the codewords out. Its characters above 0x7F (FNC4, restored
            // above) are ISO-8859-1 by the standard, never UTF-8.
            if bytes.allSatisfy({ $0 < 0x80 }) {
                text = String(decoding: bytes, as: UTF8.self)
                encoding = "ascii"
            } else {
                text = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
                encoding = "iso-8859-1"
            }
        }
        let points = symbol.points.map { map($0.x, $0.y) }
        return ScanResult(format: format, text: text, bytes: bytes, encoding: encoding, points: points,
                          orientation: Self.orientation(symbol.orientation, pass: pass), quality: symbol.quality,
                          pass: pass, addOn: symbol.addOn.map { String(decoding: $0, as: UTF8.self) },
                          partialSequence: symbol.partialSequence, gs1: symbol.gs1 && (format == .code128 || format == .qr))
    }

    /// zbar's orientation is relative to the pass image; a rotation pass turned the image, so the
    /// orientation is reported as unknown there rather than wrong.
    private static func orientation(_ o: zbar_orientation_t, pass: ScanPass) -> SymbolOrientation {
        if pass.rotates { return .unknown }
        switch o.rawValue {
        case 0: return .up
        case 1: return .right
        case 2: return .down
        case 3: return .left
        default: return .unknown
        }
    }
}

/// What a pass came to (`BarcodeReader.run`).
private enum PassOutcome {
    case found([ScanResult])
    case readNothing
    /// Not run: it could add nothing (an EAN-13 reader with EAN-13 off, across-bars lines that do
    /// not narrow).
    case skipped
    /// Not run: an image it would make exceeds the pixel budget (or a parameter is invalid).
    case refused(TransformError)
    /// The hard time limit passed.
    case outOfTime
}

/// What zbar (or an EAN-13 reader), or edge's QR reader, found on one of a pass's images, and
/// the map back from it.
private struct Scan {
    var symbols: [ZbarSymbol] = []
    var direct: [QRDirectReader.Read] = []
    let map: PointMap
}

/// A fresh zbar scanner for every read, made when a pass of that read first needs it.
///
/// Fresh: zbar's QR decoder fits lines to finder edges by random sampling from a generator
/// seeded once per scanner, so a scanner kept across reads read the same image differently
/// depending on what it had read before (found on the development photos: qrcode-1/20.png was
/// read by the sparse pass or only by the full one, depending on the reads before it); the same
/// image now gets the same answer.
/// Fresh without QR too: a 1D reader's one scanner kept across reads read ean13-1/n526.png in
/// its first pass on a repeated read but not on the first (zbar keeps decoder state past an
/// image), so a read would depend on the reads before it.
/// When needed: creating one costs about 250,000 instructions (callgrind), a fifth of a clean
/// QR photo's read by the `qr-direct` pass, which needs none.
private final class ZbarOnDemand {
    private let options: ReaderOptions
    private var made: ZbarScanner?

    init(options: ReaderOptions) { self.options = options }

    func scanner() throws(ScanError) -> ZbarScanner {
        if let made { return made }
        let scanner = try ZbarScanner(formats: options.formats, addOns: options.eanAddOns, density: Int32(options.scanDensity))
        made = scanner
        return scanner
    }
}

/// What one read's passes share.
private struct ReadState {
    let view: ImageView
    let zbar: ZbarOnDemand
    let budget: WorkBudget
    /// Whether a 1D symbology is read (`PassImage.inRegions`).
    let linear: Bool
    /// The caller's view, copied once for all passes that transform it (`images(for:)`).
    private var owned: GrayImage?

    init(_ view: ImageView, options: ReaderOptions, deadline: ContinuousClock.Instant) {
        self.view = view
        zbar = ZbarOnDemand(options: options)
        budget = WorkBudget(maxPixels: options.maxPixels, deadline: deadline)
        linear = options.formats.contains(where: \.isLinear)
    }

    /// The images a pass that transforms the image scans: for `regions`, crops straight from the
    /// caller's view (no copy of a whole camera frame); else made from an owned, packed copy.
    mutating func images(for pass: ScanPass) throws(TransformError) -> [PassImage] {
        if pass.region == .regions { return try PassImage.inRegions(of: view, by: pass, budget: budget, linear: linear) }
        return try PassImage.made(by: pass, from: ownedCopy(), budget: budget)
    }

    /// The copy transforms need, made at the first such pass. The caller's view (a camera buffer)
    /// has passed no loader's limit: it is checked here.
    private mutating func ownedCopy() throws(TransformError) -> GrayImage {
        if let owned { return owned }
        try budget.checkSize(width: view.width, height: view.height, for: "copying the image")
        let copy = view.copy()
        owned = copy
        return copy
    }
}
