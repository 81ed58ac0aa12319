import ArgumentParser
import EdgeCapture
import EdgeImaging
import EdgePayloads
import EdgeScanning
import FoundationEssentials

/// `edge scan --image FILE...`: decode still images with the same pipeline the cameras use (SCN-9);
/// `edge scan --camera DEV...`: the same for live frames (`CameraScan`).
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        // Named so help and usage errors say `edge scan` when EdgeCommand.main runs it directly.
        _superCommandName: "edge",
        abstract: "Decode barcodes in still images or live camera frames and say what they are.",
        discussion: """
        Prints one line per code: file, symbology, text, payload class (and why it is invalid).
        With --json, prints JSON Lines instead, one object per code, valid against
        models/scan-result.schema.json; an unreadable file gives {"file": ..., "error": ...}.

        With --camera, frames are read until --frames, --timeout, --until-found or SIGINT; a code
        seen in consecutive frames is reported once (again after --repeat-gap out of view), the
        file field is the device, and records add frame and latency_ms. A camera that is
        unplugged is waited for and resumed. A summary per camera goes to stderr.

        Exit status:
          0   a code was found in every file (every camera)
          1   some file (camera) had no code
          2   some input or camera could not be read (takes precedence over 1)
          64  usage error
        """
    )

    @Option(name: .customLong("image"), parsing: .upToNextOption, help: ArgumentHelp("Image files (PNG, JPEG, PGM/PPM/PBM).", valueName: "FILE"))
    var images: [String] = []

    @Option(name: .customLong("camera"), help: ArgumentHelp("V4L2 capture devices to scan live (repeatable), e.g. /dev/video0.", valueName: "DEV"))
    var cameras: [String] = []

    @Option(name: .customLong("frames"), help: ArgumentHelp("With --camera: stop after this many frames per camera.", valueName: "N"))
    var frames: Int?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("With --camera: stop after this many seconds.", valueName: "SECONDS"))
    var timeout: Double?

    @Option(name: .customLong("pixel-format"), help: ArgumentHelp("With --camera: the format to ask for (GREY, YUYV, NV12, YU12), overriding edge.json's cameras section.", valueName: "FOURCC"))
    var pixelFormat: String?

    @Option(name: .customLong("size"), help: ArgumentHelp("With --camera: the frame size to ask for, overriding edge.json (default 1280x720).", valueName: "WxH"))
    var size: String?

    @Flag(name: .customLong("until-found"), help: "With --camera: stop a camera at its first code.")
    var untilFound = false

    @Option(name: .customLong("repeat-gap"), help: ArgumentHelp("With --camera: seconds a code must be out of view before it is reported again (SCN-7).", valueName: "SECONDS"))
    var repeatGap: Double = 1.5

    @Option(name: .customLong("symbology"), help: ArgumentHelp("Comma list of qr,code128,code39,ean13 (default: all four).", valueName: "LIST"))
    var symbology: String?

    @Flag(name: .customLong("json"), help: "Print JSON Lines, one object per code.")
    var json = false

    @Option(name: .customLong("config"), help: ArgumentHelp("Configuration file (sponsor prefixes, extra payload classes). Default: $EDGE_CONFIG, then /etc/edge/edge.json if present.", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("passes"), help: ArgumentHelp("Comma list of scan passes to run instead of the planned ones (e.g. plain,invert,upscale-2).", valueName: "LIST"))
    var passes: String?

    @Option(name: .customLong("budget-ms"), help: ArgumentHelp("Stop starting new passes on an image after this many milliseconds (images: 1000; camera frames use one plain pass unless --passes is given).", valueName: "MS"))
    var budgetMilliseconds: Int?

    @Flag(name: .customLong("add-ons"), help: "Report EAN-2/EAN-5 add-ons with their EAN-13.")
    var addOns = false

    func validate() throws {
        if images.isEmpty && cameras.isEmpty { throw ValidationError("give at least one --image FILE or --camera DEV") }
        if !images.isEmpty && !cameras.isEmpty { throw ValidationError("give --image or --camera, not both") }
        if let budgetMilliseconds, budgetMilliseconds < 0 { throw ValidationError("--budget-ms must not be negative") }
        if cameras.isEmpty && (frames != nil || timeout != nil || untilFound || pixelFormat != nil || size != nil) {
            throw ValidationError("--frames, --timeout, --until-found, --pixel-format and --size apply to --camera")
        }
        if let pixelFormat, PixelFormat(pixelFormat)?.lumaLayout == nil {
            throw ValidationError("--pixel-format must be GREY, YUYV, NV12 or YU12")
        }
        if let size, Self.frameSize(size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 640x480") }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let timeout, !(timeout > 0 && timeout < 1e9) { throw ValidationError("--timeout must be a positive number of seconds") }
        if !(repeatGap >= 0 && repeatGap < 1e9) { throw ValidationError("--repeat-gap must be a non-negative number of seconds") }
    }

    func run() throws {
        let formats: Set<BarcodeFormat>
        var passList: [ScanPass]? = nil
        do throws(ScanError) {
            formats = try symbology.map { (list) throws(ScanError) in try BarcodeFormat.parseList(list) } ?? Set(BarcodeFormat.allCases)
            passList = try passes.map { (list) throws(ScanError) in
                try list.split(separator: ",").map { (name) throws(ScanError) in try ScanPass(parsing: String(name)) }
            }
        } catch {
            throw ValidationError(error.message)
        }
        let configFile = try ConfigFile.loadForCommand(explicitPath: config)
        let classifier = configFile.classifier()
        let printer = ResultPrinter(json: json)
        if !cameras.isEmpty {
            // Live frames: the camera preset (one cheap pass) unless passes or a budget are given.
            var options = ReaderOptions.cameraFrame(formats: formats)
            options.eanAddOns = addOns
            if let passList { options.passes = passList; options.maxPasses = 64 }
            if let budgetMilliseconds { options.timeBudget = .milliseconds(budgetMilliseconds) }
            let override = CameraOverride(pixelFormat: pixelFormat.flatMap { PixelFormat($0) }, size: size.flatMap(Self.frameSize))
            let scan = CameraScan(cameras: cameras, override: override, frameLimit: frames, timeLimit: timeout.map { .milliseconds(Int64($0 * 1000)) },
                                  untilFound: untilFound, readerOptions: options, classifier: classifier, printer: printer,
                                  settings: configFile.cameras, repeatGap: .milliseconds(Int64(repeatGap * 1000)))
            let status = scan.run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        let options = ReaderOptions(formats: formats, eanAddOns: addOns, passes: passList,
                                    timeBudget: .milliseconds(budgetMilliseconds ?? 1000))
        let reader = try BarcodeReader(options: options)

        var sawUnreadable = false
        var sawEmpty = false
        for path in images {
            let results: [ScanResult]
            do {
                let image = try ImageLoader.load(path: path)
                results = try reader.read(image)
            } catch {
                sawUnreadable = true
                printer.printError(file: path, message: "\(error)")
                continue
            }
            if results.isEmpty {
                sawEmpty = true
                printer.printNoCode(file: path)
            }
            for result in results {
                let record = ScanRecord(file: path, result: result, classification: classifier.classify(result))
                printer.print(record)
            }
        }
        if sawUnreadable { throw ExitCode(2) }
        if sawEmpty { throw ExitCode(1) }
    }

    static func frameSize(_ text: String) -> FrameSize? {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        return FrameSize(width: w, height: h)
    }
}
