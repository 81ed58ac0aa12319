import EdgeImaging

/// One attempt at an image (SCN-4), as data: where it looks (`region`), what it does to the
/// pixels first (`transforms`, in order), which lines it scans (`lines`) and what decodes them
/// (`decoder`). Its name, e.g. `plain`, `invert`, `downscale-2+rotate-30`, `downscale-1.5+sparse`,
/// is reported with every code it finds and names it in `--passes`.
///
/// A name lists the fields in that order, `+` between words: the region (`regions`) or, for
/// `rectify`, after the transforms it warps; then the transforms; then the lines (`sparse`,
/// `across-bars`); then the decoder (`ean-lines`, `ean-model`, `qr-direct`). zbar, every line and the whole
/// image are the defaults and print nothing; a pass with nothing else is `plain`.
public struct ScanPass: Sendable, Hashable, CustomStringConvertible {
    /// Which part of the image the pass reads.
    public enum Region: Sendable, Hashable {
        /// The whole image.
        case whole
        /// Only the regions `CodeRegionFinder` marks as code-like, each cropped from the caller's
        /// image, transformed and scanned on its own (the camera preset's first pass).
        case regions
        /// QR only: the code found by its finder patterns, warped upright (`QRRectifier`) after the
        /// transforms. What zbar reads nothing from, edge reads from the modules itself
        /// (`QRModuleDecoder`, `QRGridSampler`).
        case rectify
    }

    /// A change to the pixels. Each computes the size of what it makes before allocating (SCN-10).
    public enum Transform: Sendable, Hashable, CustomStringConvertible {
        case downscale(Int)
        /// Shrink to two thirds (`ImageView.downscaledThreeHalves`), printed `downscale-1.5`.
        case downscaleThreeHalves
        case upscale(Int)
        case invert
        case stretch
        case blur
        case binarize
        case rotate(Int)
        /// White margin, in percent of the longer side (at least 8 px).
        case pad(Int)
        /// Whiten the dark frame a tight crop left at the ends of the lines across the bars
        /// (`ImageView.clearingDarkEnds`), so a 1D code regains its quiet zones.
        case clearBorder
        case erode
        /// 3x3 maximum; after `erode`, an opening that clears texture inside dark modules.
        case dilate
        case sharpen

        public var description: String {
            switch self {
            case .downscale(let f): return "downscale-\(f)"
            case .downscaleThreeHalves: return "downscale-1.5"
            case .upscale(let f): return "upscale-\(f)"
            case .invert: return "invert"
            case .stretch: return "stretch"
            case .blur: return "blur"
            case .binarize: return "binarize"
            case .rotate(let d): return "rotate-\(d)"
            case .pad(let p): return "pad-\(p)"
            case .clearBorder: return "clear-border"
            case .erode: return "erode"
            case .dilate: return "dilate"
            case .sharpen: return "sharpen"
            }
        }
    }

    /// Which of zbar's lines the pass scans.
    public struct Lines: Sendable, Hashable {
        /// Every second row and column (zbar density 2) instead of every one: half the cost, and a
        /// clean code whose narrowest element is 2+ pixels is still read.
        public var sparse: Bool
        /// Only the lines that cross a 1D code's bars (`ScanLines.acrossBars`): rows when the
        /// image's strong edges are upright, columns when they lie down, else both. Half the cost
        /// when it narrows; a pass that only does this is skipped when it cannot.
        public var acrossBars: Bool

        public init(sparse: Bool, acrossBars: Bool) {
            self.sparse = sparse
            self.acrossBars = acrossBars
        }

        public static let all = Lines(sparse: false, acrossBars: false)
        public static let sparse = Lines(sparse: true, acrossBars: false)
        public static let acrossBars = Lines(sparse: false, acrossBars: true)
        public static let sparseAcrossBars = Lines(sparse: true, acrossBars: true)

        /// The lines to scan on `view`, the image the pass scans.
        func scanLines(in view: ImageView) -> ScanLines { acrossBars ? .acrossBars(in: view) : .both }

        /// The zbar scan density: when sparse, 2, or 3 across bars (a 1D code's bars are tall: an
        /// EAN-13 is about 70 modules high, so every third line still crosses it dozens of times;
        /// QR finder patterns are 3 modules across and need every second); else the reader's.
        /// Measured on the development photos: density 3 across bars read the same 1D photos in
        /// two thirds of the time, with no misread; density 4 turned one blurred EAN-13 into
        /// another valid one (ean13-1/37.png, on 11 lines).
        func zbarDensity(_ readerDensity: Int) -> Int {
            guard sparse else { return readerDensity }
            return max(acrossBars ? 3 : 2, readerDensity)
        }
    }

    /// What reads the scanned image.
    public enum Decoder: Sendable, Hashable {
        case zbar
        /// Not zbar: edge's own EAN-13 reader along every second row and column
        /// (`EAN13LineReader`), for bars zbar's decoder gives up on; with `sparse` lines, along
        /// 21 rows or columns, a first pass that takes only a text no line disputes.
        case eanLines
        /// Not zbar: edge's EAN-13 reader for blurred bars, fitting every fourth row and column to
        /// blurred characters (`EAN13ModelReader`).
        case eanModel
        /// Not zbar: edge's own QR reader, from the finder patterns straight to the modules
        /// (`QRDirectReader`), at a fraction of zbar's cost on a clean photo.
        case qrDirect

        /// Whether the decoder reads any of `formats` (a pass whose decoder does not is skipped).
        func reads(any formats: Set<BarcodeFormat>) -> Bool {
            switch self {
            case .zbar: return true
            case .eanLines, .eanModel: return formats.contains(.ean13)
            case .qrDirect: return formats.contains(.qr)
            }
        }
    }

    public var region: Region
    public var transforms: [Transform]
    public var lines: Lines
    public var decoder: Decoder

    public init(region: Region = .whole, _ transforms: [Transform] = [], lines: Lines = .all, decoder: Decoder = .zbar) {
        self.region = region
        self.transforms = transforms
        self.lines = lines
        self.decoder = decoder
    }

    public static let plain = ScanPass()

    public var description: String {
        var words: [String] = region == .regions ? ["regions"] : []
        words += transforms.map(\.description)
        if region == .rectify { words.append("rectify") }
        if lines.sparse { words.append("sparse") }
        if lines.acrossBars { words.append("across-bars") }
        switch decoder {
        case .zbar: break
        case .eanLines: words.append("ean-lines")
        case .eanModel: words.append("ean-model")
        case .qrDirect: words.append("qr-direct")
        }
        return words.isEmpty ? "plain" : words.joined(separator: "+")
    }

    /// Whether the pass scans anything but the caller's image as given (it then needs crops, warps
    /// or an owned copy); lines and decoders only change how an image is scanned.
    var transformsImage: Bool { region != .whole || !transforms.isEmpty }

    /// A scan of the whole image as given or only shrunk: what the camera preset schedules after
    /// an empty regions pass (`ReaderOptions.wholeFrameInterval`).
    var isWholeFrameScan: Bool {
        region == .whole && transforms.allSatisfy { if case .downscale = $0 { true } else { false } }
    }

    /// A rotation turns the bars: zbar's orientation and a region's scan direction no longer hold.
    var rotates: Bool { transforms.contains { if case .rotate = $0 { true } else { false } } }

    /// Erosion merges neighbouring bars and sharpening shifts bar edges: on the development
    /// photos both turned blurred EAN-13s into other valid EAN-13s. Their QR reads are safe
    /// (Reed-Solomon checked); their 1D reads, and the rectifier's (a warp made for a QR code),
    /// are dropped.
    var trustsLinearReads: Bool {
        region != .rectify && !transforms.contains { $0 == .erode || $0 == .dilate || $0 == .sharpen }
    }
}

extension ScanPass {
    /// Parses a pass name as printed (`plain`, `invert+upscale-2`, `rotate-30`), so operators and
    /// benchmarks can give an explicit pass list. Only the name a pass prints is accepted (each
    /// word once, in the order of `description`), so a parsed name prints back as given.
    public init(parsing name: String) throws(ScanError) {
        if name == "plain" { self = .plain; return }
        var pass = ScanPass()
        for part in name.split(separator: "+", omittingEmptySubsequences: false) {
            guard Self.apply(String(part), to: &pass) else {
                throw ScanError(.unknownPass, "unknown scan pass '\(name)'", context: ["pass": name])
            }
        }
        // A word repeated or out of place would print differently: refused rather than reordered,
        // so every accepted name is the one results report.
        guard pass.description == name else {
            throw ScanError(.unknownPass, "scan pass '\(name)' is not written as passes print: regions, image transforms, "
                            + "rectify, sparse, across-bars, ean-lines, ean-model or qr-direct, each once", context: ["pass": name])
        }
        self = pass
    }

    /// Sets the field `word` names in `pass`; false for an unknown word or an out-of-range number.
    private static func apply(_ word: String, to pass: inout ScanPass) -> Bool {
        switch word {
        case "regions": pass.region = .regions
        case "rectify": pass.region = .rectify
        case "sparse": pass.lines.sparse = true
        case "across-bars": pass.lines.acrossBars = true
        case "ean-lines": pass.decoder = .eanLines
        case "ean-model": pass.decoder = .eanModel
        case "qr-direct": pass.decoder = .qrDirect
        default:
            guard let transform = transform(word) else { return false }
            pass.transforms.append(transform)
        }
        return true
    }

    private static func transform(_ word: String) -> Transform? {
        let pieces = word.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        let number = pieces.count > 1 ? Int(pieces[1]) : nil
        switch (pieces.first.map(String.init) ?? "", number) {
        case ("downscale", nil) where word == "downscale-1.5": return .downscaleThreeHalves
        case ("downscale", let n?) where (2...16).contains(n): return .downscale(n)
        case ("upscale", let n?) where (2...4).contains(n): return .upscale(n)
        case ("rotate", let n?) where (-179...179).contains(n): return .rotate(n)
        case ("pad", let n?) where (0...50).contains(n): return .pad(n)
        case ("invert", nil) where pieces.count == 1: return .invert
        case ("stretch", nil) where pieces.count == 1: return .stretch
        case ("blur", nil) where pieces.count == 1: return .blur
        case ("binarize", nil) where pieces.count == 1: return .binarize
        case ("clear", nil) where word == "clear-border": return .clearBorder
        case ("erode", nil) where pieces.count == 1: return .erode
        case ("dilate", nil) where pieces.count == 1: return .dilate
        case ("sharpen", nil) where pieces.count == 1: return .sharpen
        default: return nil
        }
    }
}
