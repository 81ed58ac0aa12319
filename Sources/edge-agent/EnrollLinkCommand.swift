import ArgumentParser
import EdgeAgent
import EdgeCapture
import EdgeCommandLine
import EdgeCrypto
import EdgeEnrollment
import EdgePayloads

/// `edge enroll CODE` / `edge enroll --camera DEV`: validates the code locally (ENR-2, ENR-3),
/// then with the sponsor's portal (ENR-5..7), and shows the enrollment it made or re-enrolled.
struct EnrollLinkCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link an enrollment: `edge enroll AB-7KX-M4PQR`, or read the code from a camera.",
        discussion: """
        The code is typed as printed (dashes and spaces are ignored, at most 12 characters), given \
        as the link or JSON a QR code carries (`https://.../?code=AB-7KX-M4PQR`, \
        `https://.../l/AB7KXM4PQR`, `{"type":"LINK","code":"AB7KXM4PQR"}`), or read from a camera \
        with --camera, which takes the same carriers. It is never printed, logged or stored \
        (ENR-8). With \
        --reenroll ID, an enrollment that is NOT_PARTICIPATING is re-enrolled: the code must \
        belong to the same patient (ENR-14).

        A code given as an argument is visible to other users of this machine in the process \
        list while the command runs: give `-` to read it from stdin instead (e.g. typed at the \
        prompt of `read -s`), or use --camera.

        \(EnrollCommand.exitCodes)
        """
    )

    @OptionGroup var options: EnrollOptions

    @Argument(help: ArgumentHelp("The linking code, e.g. AB-7KX-M4PQR; `-` reads it from stdin.", valueName: "CODE"))
    var code: String?

    @Option(name: .customLong("camera"), help: ArgumentHelp("Read the code from this camera instead.", valueName: "DEV"))
    var camera: String?

    @Option(name: .customLong("pixel-format"), help: ArgumentHelp("With --camera: the format to ask for (GREY, YUYV, NV12, YU12), as for `edge scan`.", valueName: "FOURCC"))
    var pixelFormat: String?

    @Option(name: .customLong("size"), help: ArgumentHelp("With --camera: the frame size to ask for, as for `edge scan`.", valueName: "WxH"))
    var size: String?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("With --camera, give up after this many seconds.", valueName: "SECONDS"))
    var timeout: Double = 60

    @Option(name: .customLong("reenroll"), help: ArgumentHelp("Re-enroll this NOT_PARTICIPATING enrollment.", valueName: "ID"))
    var reenroll: Int64?

    func validate() throws {
        guard (code == nil) != (camera == nil) else {
            throw ValidationError("Give either a linking code or --camera DEV.")
        }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds.") }
        if camera == nil, pixelFormat != nil || size != nil { throw ValidationError("--pixel-format and --size apply to --camera") }
        if let pixelFormat, PixelFormat(pixelFormat)?.lumaLayout == nil { throw ValidationError("--pixel-format must be GREY, YUYV, NV12 or YU12") }
        if let size, ScanRequest.frameSize(size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 640x480") }
    }

    /// --pixel-format / --size win over edge.json's cameras section, as in `edge scan --camera`.
    private var override: CaptureConfiguration? {
        guard pixelFormat != nil || size != nil else { return nil }
        return CameraOverride(pixelFormat: pixelFormat.flatMap { PixelFormat($0) }, size: size.flatMap(ScanRequest.frameSize))
            .apply(to: CaptureConfiguration())
    }

    /// The argument, or with `-` the first line of stdin (bounded: a code is 12 characters typed,
    /// a link or JSON card from a QR code a few hundred).
    private func typedCode() throws -> String {
        guard code == "-" else { return code ?? "" }
        var bytes = try StandardInput.readAll(max: 257)
        defer { SecureWipe.wipe(&bytes) }
        return String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
    }

    func runAsync() async throws {
        let (enrollments, station) = try options.open()
        let typed = camera == nil ? try typedCode() : ""
        let enrollment: Enrollment
        do {
            if let camera {
                let source: any FrameSource = camera.hasPrefix("replay:")
                    ? ReplayFrameSource(files: camera.dropFirst("replay:".count).split(separator: ",").map(String.init), fps: 10)
                    : V4L2FrameSource(device: camera, models: station.cameraModels, override: override)
                let stop = StopFlag()
                let signals = TerminationSignals { stop.set() }
                defer { signals.cancel() }
                let code = try LinkingCodeCamera.read(from: source, sponsors: station.payloads?.sponsors ?? .empty, classifier: station.classifier(),
                                                      timeout: .milliseconds(Int64(timeout * 1000)), shouldStop: { stop.isSet })
                Output.stderr("edge: read a linking code for sponsor prefix \(code.prefix) from \(Output.printable(source.origin))")
                enrollment = try await enrollments.enroll(code, reenrolling: reenroll)
            } else {
                enrollment = try await enrollments.enroll(input: typed, source: .typed, reenrolling: reenroll)
            }
        } catch {
            throw EnrollCommand.fail(error)
        }
        options.print(enrollment)
    }
}
