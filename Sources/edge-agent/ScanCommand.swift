import ArgumentParser
import EdgeCapture
import EdgeCommandLine
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

    @Option(name: .customLong("symbology"), help: ArgumentHelp("Comma list of qr,code128,code39,ean13,code32 (default: edge.json's scanning.symbologies, else the first four; code32 is the Italian pharmacode on Code 39 bars, off unless asked for).", valueName: "LIST"))
    var symbology: String?

    @Flag(name: .customLong("json"), help: "Print JSON Lines, one object per code.")
    var json = false

    @Option(name: .customLong("config"), help: ArgumentHelp("Configuration file (sponsor prefixes, extra payload classes). Default: $EDGE_CONFIG, then /etc/edge/edge.json if present.", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("passes"), help: ArgumentHelp("Comma list of scan passes to run instead of the planned ones (e.g. plain,invert,upscale-2).", valueName: "LIST"))
    var passes: String?

    @Option(name: .customLong("budget-ms"), help: ArgumentHelp("Stop starting new passes on an image after this many milliseconds (default 1000).", valueName: "MS"))
    var budgetMilliseconds: Int?

    @Flag(name: .customLong("add-ons"), help: "Report EAN-2/EAN-5 add-ons with their EAN-13.")
    var addOns = false

    @Option(name: .customLong("code39-full-ascii"), help: ArgumentHelp("Code 39 Full ASCII: auto (decode when every shift pair is valid), raw or full-ascii; overrides edge.json's scanning section.", valueName: "MODE"))
    var code39FullASCII: String?

    @Option(name: .customLong("code39-check-digit"), help: ArgumentHelp("Code 39 mod-43 check character: optional or required (verified and stripped).", valueName: "POLICY"))
    var code39CheckDigit: String?

    /// The parsed options as plain values; validating and running them is `ScanRequest`'s.
    var request: ScanRequest {
        var request = ScanRequest()
        request.images = images; request.cameras = cameras; request.frames = frames; request.timeout = timeout
        request.pixelFormat = pixelFormat; request.size = size; request.untilFound = untilFound; request.repeatGap = repeatGap
        request.symbology = symbology; request.json = json; request.config = config; request.passes = passes
        request.budgetMilliseconds = budgetMilliseconds; request.addOns = addOns
        request.code39FullASCII = code39FullASCII; request.code39CheckDigit = code39CheckDigit
        return request
    }

    func validate() throws { try request.validate() }

    func run() throws { try request.run() }
}
