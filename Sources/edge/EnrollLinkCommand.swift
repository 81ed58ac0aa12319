import ArgumentParser
import EdgeAgent
import EdgeCapture
import EdgeEnrollment
import EdgePayloads

/// `edge enroll CODE` / `edge enroll --camera DEV`: validates the code locally (ENR-2, ENR-3),
/// then with the sponsor's portal (ENR-5..7), and shows the enrollment it made or re-enrolled.
struct EnrollLinkCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Link an enrollment: `edge enroll AB-7KX-M4PQR`, or read the code from a camera.",
        discussion: """
        The code is typed as printed (dashes and spaces are ignored, at most 12 characters) or read \
        from a camera with --camera. It is never printed, logged or stored (ENR-8). With \
        --reenroll ID, an enrollment that is NOT_PARTICIPATING is re-enrolled: the code must \
        belong to the same patient (ENR-14).

        Note: a code given as an argument is visible to other users of this machine in the \
        process list while the command runs; on a shared machine use --camera or the local UI.

        \(EnrollCommand.exitCodes)
        """
    )

    @OptionGroup var options: EnrollOptions

    @Argument(help: ArgumentHelp("The linking code, e.g. AB-7KX-M4PQR.", valueName: "CODE"))
    var code: String?

    @Option(name: .customLong("camera"), help: ArgumentHelp("Read the code from this camera instead.", valueName: "DEV"))
    var camera: String?

    @Option(name: .customLong("timeout"), help: ArgumentHelp("With --camera, give up after this many seconds.", valueName: "SECONDS"))
    var timeout: Double = 60

    @Option(name: .customLong("reenroll"), help: ArgumentHelp("Re-enroll this NOT_PARTICIPATING enrollment.", valueName: "ID"))
    var reenroll: Int64?

    func validate() throws {
        guard (code == nil) != (camera == nil) else {
            throw ValidationError("Give either a linking code or --camera DEV.")
        }
        guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 0 and 3600 seconds.") }
    }

    func runAsync() async throws {
        let (enrollments, station) = try options.open()
        let enrollment: Enrollment
        do {
            if let camera {
                let source: any FrameSource = camera.hasPrefix("replay:")
                    ? ReplayFrameSource(files: camera.dropFirst("replay:".count).split(separator: ",").map(String.init), fps: 10)
                    : V4L2FrameSource(device: camera, models: station.cameraModels)
                let stop = StopFlag()
                let signals = TerminationSignals { stop.set() }
                defer { signals.cancel() }
                let code = try LinkingCodeCamera.read(from: source, sponsors: station.payloads?.sponsors ?? .empty, classifier: station.classifier(),
                                                      timeout: .milliseconds(Int64(timeout * 1000)), shouldStop: { stop.isSet })
                Output.stderr("edge: read a linking code for sponsor prefix \(code.prefix) from \(Output.printable(source.origin))")
                enrollment = try await enrollments.enroll(code, reenrolling: reenroll)
            } else {
                enrollment = try await enrollments.enroll(input: code ?? "", source: .typed, reenrolling: reenroll)
            }
        } catch {
            throw EnrollCommand.fail(error)
        }
        options.print(enrollment)
    }
}
