import ArgumentParser
import EdgeCapture
import EdgeCommandLine
import EdgeScanning

/// `edge scan` in edge-agent: the checks and messages of swift-argument-parser, edge.json read
/// and checked whole (`ConfigFile`), and cameras. The `edge` front decodes the plain still-image
/// forms itself when there is no configuration file, and comes here for everything else.
extension ScanRequest {
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
        if let size, ScanRequest.frameSize(size) == nil { throw ValidationError("--size must be WIDTHxHEIGHT, e.g. 640x480") }
        if let code39FullASCII, Code39FullASCII.Policy(rawValue: code39FullASCII) == nil {
            throw ValidationError("--code39-full-ascii must be auto, raw or full-ascii")
        }
        if let code39CheckDigit, ReaderOptions.CheckDigitPolicy(rawValue: code39CheckDigit) == nil {
            throw ValidationError("--code39-check-digit must be optional or required")
        }
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1") }
        if let timeout, !(timeout > 0 && timeout < 1e9) { throw ValidationError("--timeout must be a positive number of seconds") }
        if !(repeatGap >= 0 && repeatGap < 1e9) { throw ValidationError("--repeat-gap must be a non-negative number of seconds") }
    }

    func run() throws {
        let lists: (formats: Set<BarcodeFormat>?, passes: [ScanPass]?)
        do throws(ScanError) {
            lists = try parsedLists()
        } catch {
            throw ValidationError(error.message)
        }
        let passList = lists.passes
        let configFile = try ConfigFile.loadForCommand(explicitPath: config)
        let classifier = configFile.classifier()
        let printer = ResultPrinter(json: json)
        let scanning = scanning(over: configFile.station.scanning, formats: lists.formats)
        if !cameras.isEmpty {
            // Live frames: the camera preset (code-like regions, then the whole frame) unless
            // passes or a budget are given.
            var options = scanning.apply(to: ReaderOptions.cameraFrame())
            options.eanAddOns = addOns
            if let passList { options.passes = passList; options.maxPasses = 64 }
            if let budgetMilliseconds { options.timeBudget = .milliseconds(budgetMilliseconds) }
            let override = CameraOverride(pixelFormat: pixelFormat.flatMap { PixelFormat($0) }, size: size.flatMap(ScanRequest.frameSize))
            let scan = CameraScan(cameras: cameras, override: override, frameLimit: frames, timeLimit: timeout.map { .milliseconds(Int64($0 * 1000)) },
                                  untilFound: untilFound, readerOptions: options, classifier: classifier, printer: printer,
                                  settings: configFile.cameras, repeatGap: .milliseconds(Int64(repeatGap * 1000)))
            let status = scan.run()
            if status != 0 { throw ExitCode(status) }
            return
        }
        let scan = try ImageScan(images: images, options: imageOptions(scanning: scanning, passes: passList),
                                 classifier: classifier, printer: printer)
        let status = scan.run()
        if status != 0 { throw ExitCode(status) }
    }

    static func frameSize(_ text: String) -> FrameSize? {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...16384).contains(w), (1...16384).contains(h) else { return nil }
        return FrameSize(width: w, height: h)
    }
}
