import EdgeScanning

/// What `edge scan` was asked to do, as plain values: from edge-agent's `ScanCommand`
/// (swift-argument-parser) or, for the common script forms, from `fastPath`, which the `edge`
/// front reads too (SCN-12). Checking and running a request with a configuration or cameras is
/// edge-agent's (`ScanRequest+Run.swift`); the still-image part both run is here.
public struct ScanRequest: Equatable, Sendable {
    public var images: [String] = []
    public var cameras: [String] = []
    public var frames: Int? = nil
    public var timeout: Double? = nil
    public var pixelFormat: String? = nil
    public var size: String? = nil
    public var untilFound = false
    public var repeatGap: Double = 1.5
    public var symbology: String? = nil
    public var json = false
    public var config: String? = nil
    public var passes: String? = nil
    public var budgetMilliseconds: Int? = nil
    public var addOns = false
    /// Code 39 rules over edge.json's `scanning` section.
    public var code39FullASCII: String? = nil
    public var code39CheckDigit: String? = nil

    public init() {}

    /// Decision (SCN-12): `edge scan --image FILE...` with at most --json, --symbology, --config,
    /// --passes, --budget-ms and --add-ons is read here without swift-argument-parser, whose
    /// reflection over ScanCommand's options costs every such process ~10 M instructions
    /// (callgrind; more than zbarimg spends on a whole small image). Anything else (help, camera
    /// options, `--opt=value`, repeats, a value that looks like an option) returns nil and goes
    /// to ScanCommand, which owns usage, help and every error message. A test holds the two to
    /// the same result for the forms accepted here.
    public static func fastPath(_ arguments: [String]) -> ScanRequest? {
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

    /// --symbology and --passes read as values; their one error is the list's (`ScanError`).
    public func parsedLists() throws(ScanError) -> (formats: Set<BarcodeFormat>?, passes: [ScanPass]?) {
        let formats = try symbology.map { (list) throws(ScanError) in try BarcodeFormat.parseList(list) }
        let passes = try self.passes.map { (list) throws(ScanError) in
            try list.split(separator: ",").map { (name) throws(ScanError) in try ScanPass(parsing: String(name)) }
        }
        return (formats, passes)
    }

    /// edge.json's scanning section with this request's --symbology and Code 39 options over it.
    public func scanning(over settings: ScanningSettings, formats: Set<BarcodeFormat>?) -> ScanningSettings {
        var scanning = settings
        if let mode = code39FullASCII.flatMap(Code39FullASCII.Policy.init(rawValue:)) { scanning.code39FullASCII = mode }
        if let policy = code39CheckDigit.flatMap(ReaderOptions.CheckDigitPolicy.init(rawValue:)) { scanning.code39CheckDigit = policy }
        if let formats { scanning.symbologies = formats }
        return scanning
    }

    /// The still-image reader's options: the photo plan unless --passes is given, 1 s per image
    /// unless --budget-ms says otherwise.
    public func imageOptions(scanning: ScanningSettings, passes: [ScanPass]?) -> ReaderOptions {
        scanning.apply(to: ReaderOptions(eanAddOns: addOns, passes: passes, timeBudget: .milliseconds(budgetMilliseconds ?? 1000)))
    }
}
