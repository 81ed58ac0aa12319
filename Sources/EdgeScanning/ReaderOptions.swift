import EdgeImaging

/// Everything that steers one read (zxing-cpp's ReaderOptions shape): which formats, which passes,
/// and how much effort.
public struct ReaderOptions: Sendable, Equatable {
    public enum CheckDigitPolicy: String, Sendable, Equatable {
        /// Code 39's mod-43 check character is optional in the symbology; most labels have none.
        case optional
        /// The last character must be a valid mod-43 check character; it is verified and stripped.
        case required
    }

    public var formats: Set<BarcodeFormat>
    /// Report EAN-2/EAN-5 add-ons with their EAN-13 (SCN-3). Off by default: zbar then waits for an
    /// add-on that most products do not have, and reads EAN-13 alone less often.
    public var eanAddOns: Bool
    public var code39CheckDigit: CheckDigitPolicy
    /// Whether Code 39 reads are decoded as Full ASCII (`Code39FullASCII`).
    public var code39FullASCII: Code39FullASCII.Policy = .auto
    /// Explicit pass list; nil means the reader plans passes from the image size and formats.
    public var passes: [ScanPass]?
    /// At most this many passes per image.
    public var maxPasses: Int
    /// Stop starting new passes once this much time has gone (the running pass may finish, up
    /// to `timeLimit`).
    /// Decision: 1 s, where a person waits for an answer; the camera preset has only three
    /// passes, so this bounds operator-given pass lists (`--passes`) on camera frames.
    public var timeBudget: Duration
    /// A pass still transforming the image this long after the read began is abandoned, checked
    /// inside the pass (per band of rows), so a hostile image cannot hold the reader for minutes.
    /// nil: twice `timeBudget`. Decision: a pass that began within the budget may run past it
    /// (the budget only stops new passes, so large photos keep their late reads, SCN-11), but
    /// not without bound. zbar's own scan of one image cannot be interrupted; the pixel budget
    /// bounds it.
    public var timeLimit: Duration?
    /// zbar scans every `scanDensity`-th row and column (ZBAR_CFG_X/Y_DENSITY). 1 reads the most;
    /// 2 halves the cost and still finds codes whose narrowest element is 2+ pixels.
    public var scanDensity: Int
    /// Largest image any pass may derive (padded, scaled, rotated, filtered) or allocate per
    /// pixel: by default the loaders' limit (`ImageLimits.defaultMaxPixels`, SCN-10). A pass
    /// that would exceed it is not run (`ScanErrorCode.passTooLarge`).
    public var maxPixels: Int
    /// For a reader fed the consecutive frames of one camera: after a regions pass that read
    /// nothing, the whole-frame pass runs on the frame nearest this long after it last ran, or
    /// when the scene changed (nil: on every frame). See `cameraFrame(formats:)` for the decision.
    public var wholeFrameInterval: Duration?
    /// Of those whole-frame passes, the ones at full resolution (untransformed) run on the frame
    /// nearest this long after they last ran, or when the scene changed (nil: at
    /// `wholeFrameInterval` like the shrunk ones). See `cameraFrame(formats:)`.
    public var fullFrameInterval: Duration?

    public init(formats: Set<BarcodeFormat> = BarcodeFormat.standard, eanAddOns: Bool = false,
                code39CheckDigit: CheckDigitPolicy = .optional, passes: [ScanPass]? = nil,
                maxPasses: Int = 64, timeBudget: Duration = .seconds(1), scanDensity: Int = 1,
                maxPixels: Int = ImageLimits.defaultMaxPixels, timeLimit: Duration? = nil) {
        self.formats = formats
        self.eanAddOns = eanAddOns
        self.code39CheckDigit = code39CheckDigit
        self.passes = passes
        self.maxPasses = maxPasses
        self.timeBudget = timeBudget
        self.scanDensity = max(1, min(8, scanDensity))
        self.maxPixels = max(0, maxPixels)
        self.timeLimit = timeLimit
    }

    /// The hard limit in force: `timeLimit`, or twice `timeBudget`.
    var effectiveTimeLimit: Duration { timeLimit ?? timeBudget * 2 }

    /// A single plain zbar pass: what zbar alone reads (for comparisons and the fastest loops).
    public static func plainOnly(formats: Set<BarcodeFormat> = BarcodeFormat.standard) -> ReaderOptions {
        ReaderOptions(formats: formats, passes: [.plain], maxPasses: 1)
    }

    /// For live camera frames (SCN-12), at scan density 2: first only the regions that look like
    /// codes (`CodeRegionFinder`), then, when they held none, the whole frame. A camera delivers
    /// the same code again 30 ms later, so the heavier still-image passes are not worth their
    /// time, while every frame's decode time adds to the latency of the next.
    ///
    /// Decisions:
    /// - The whole-frame pass is for codes the finder misses (one too large for it, close to the
    ///   lens). Such a code stays in view for many frames, so after an empty regions pass the
    ///   whole frame is scanned on the frame nearest 200 ms after the last such scan
    ///   (`wholeFrameInterval`), or at once when the scene changed (`SceneSignature`: a code
    ///   held up changes it). A code the finder misses is read in the frame it appears, or within
    ///   about 200 ms if it crept in unnoticed; one the finder sees in the frame it enters. An
    ///   idle camera at 30 fps then pays for the finder on every frame and for a whole-frame
    ///   scan on one frame in six, instead of both on every frame (Benchmarks/run.py section 2
    ///   measures it, and the time to first read). Time, not a frame count, so the bound holds
    ///   at any frame rate: at 5 fps or less every frame gets the whole-frame pass, as before.
    /// - The whole-frame scan is first a shrunk one (half size, at the preset's density 2), then,
    ///   when that read nothing, the full-resolution one. The codes the finder misses for their
    ///   size have modules over about 6 px, still 3 px at half size, where the still-image plan
    ///   reads such codes too; that scan costs about a quarter of the full one (callgrind on the
    ///   Benchmarks' empty 1280x720 frame: 25 M against 95 M instructions; issue #32: the full
    ///   scan every 200 ms was most of an idle camera's time, so the single-symbology presets
    ///   cost more than zxing-cpp, whose cost falls with each symbology left out). The shrunk
    ///   scan runs every 200 ms; the full one at once when the scene changed, as before, and else
    ///   every `fullFrameInterval`, 1 s: a
    ///   small code the finder misses (low contrast, a crowded frame) that crept in unnoticed
    ///   is read within a second instead of 200 ms, one held up in the frame it appears.
    /// - While nothing in view moves, the same pixels are not scanned whole again for nothing:
    ///   both intervals stretch fivefold until something moves (`WholeFrameSchedule.stillFactor`).
    /// - When the whole-frame pass is due it always runs, whatever the time (the budget is the
    ///   still images' 1 s): on a slow CPU a budget cut there would leave such codes unread for
    ///   good, not just late.
    public static func cameraFrame(formats: Set<BarcodeFormat> = BarcodeFormat.standard) -> ReaderOptions {
        var options = ReaderOptions(formats: formats, passes: [ScanPass(region: .regions), ScanPass([.downscale(2)]), .plain],
                                    maxPasses: 3, scanDensity: 2)
        options.wholeFrameInterval = .milliseconds(200)
        options.fullFrameInterval = .seconds(1)
        return options
    }
}
