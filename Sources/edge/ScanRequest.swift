import EdgeAgent
import ArgumentParser
import EdgeCapture
import EdgeImaging
import EdgePayloads
import EdgeScanning
import FoundationEssentials

/// What `edge scan` was asked to do, as plain values: from `ScanCommand` (swift-argument-parser)
/// or, for the common script forms, from `fastPath` (SCN-12).
struct ScanRequest: Equatable {
    var images: [String] = []
    var cameras: [String] = []
    var frames: Int? = nil
    var timeout: Double? = nil
    var pixelFormat: String? = nil
    var size: String? = nil
    var untilFound = false
    var repeatGap: Double = 1.5
    var symbology: String? = nil
    var json = false
    var config: String? = nil
    var passes: String? = nil
    var budgetMilliseconds: Int? = nil
    var addOns = false
    /// Code 39 rules over edge.json's `scanning` section.
    var code39FullASCII: String? = nil
    var code39CheckDigit: String? = nil

    /// Decision (SCN-12): `edge scan --image FILE...` with at most --json, --symbology, --config,
    /// --passes, --budget-ms and --add-ons is read here without swift-argument-parser, whose
    /// reflection over ScanCommand's options costs every such process ~10 M instructions
    /// (callgrind; more than zbarimg spends on a whole small image). Anything else (help, camera
    /// options, `--opt=value`, repeats, a value that looks like an option) returns nil and goes
    /// to ScanCommand, which owns usage, help and every error message. A test holds the two to
    /// the same result for the forms accepted here.
    static func fastPath(_ arguments: [String]) -> ScanRequest? {
        var request = ScanRequest()
        var seen: Set<String> = []
        var i = 0
        func value() -> String? {
            guard i + 1 < arguments.count, !arguments[i + 1].hasPrefix("-") else { return nil }
            i += 1
            return arguments[i]
        }
        while i < arguments.count {
            let option = arguments[i]
            if option != "--image" {
                guard !seen.contains(option) else { return nil }
                seen.insert(option)
            }
            switch option {
            case "--image":
                // Values up to the next option, as ScanCommand's `.upToNextOption`.
                var files: [String] = []
                while i + 1 < arguments.count, !arguments[i + 1].hasPrefix("-") {
                    i += 1
                    files.append(arguments[i])
                }
                guard !files.isEmpty else { return nil }
                request.images += files
            case "--json": request.json = true
            case "--add-ons": request.addOns = true
            case "--symbology": guard let v = value() else { return nil }; request.symbology = v
            case "--config": guard let v = value() else { return nil }; request.config = v
            case "--passes": guard let v = value() else { return nil }; request.passes = v
            case "--budget-ms": guard let v = value(), let n = Int(v) else { return nil }; request.budgetMilliseconds = n
            default: return nil
            }
            i += 1
        }
        return request.images.isEmpty ? nil : request
    }

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
        var formats: Set<BarcodeFormat>? = nil
        var passList: [ScanPass]? = nil
        do throws(ScanError) {
            formats = try symbology.map { (list) throws(ScanError) in try BarcodeFormat.parseList(list) }
            passList = try passes.map { (list) throws(ScanError) in
                try list.split(separator: ",").map { (name) throws(ScanError) in try ScanPass(parsing: String(name)) }
            }
        } catch {
            throw ValidationError(error.message)
        }
        let configFile = try ConfigFile.loadForCommand(explicitPath: config)
        let classifier = configFile.classifier()
        let printer = ResultPrinter(json: json)
        var scanning = configFile.station.scanning
        if let mode = code39FullASCII.flatMap(Code39FullASCII.Policy.init(rawValue:)) { scanning.code39FullASCII = mode }
        if let policy = code39CheckDigit.flatMap(ReaderOptions.CheckDigitPolicy.init(rawValue:)) { scanning.code39CheckDigit = policy }
        if let formats { scanning.symbologies = formats }
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
        let options = scanning.apply(to: ReaderOptions(eanAddOns: addOns, passes: passList,
                                                       timeBudget: .milliseconds(budgetMilliseconds ?? 1000)))
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
