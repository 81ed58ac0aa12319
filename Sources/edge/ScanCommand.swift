import ArgumentParser
import EdgeImaging
import EdgePayloads
import EdgeScanning
import FoundationEssentials

/// `edge scan --image FILE...`: decode still images with the same pipeline the cameras use (SCN-9).
struct ScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Decode barcodes in still images and say what they are.",
        discussion: """
        Prints one line per code: file, symbology, text, payload class (and why it is invalid).
        With --json, prints JSON Lines instead, one object per code, valid against
        models/scan-result.schema.json; an unreadable file gives {"file": ..., "error": ...}.

        Exit status:
          0   a code was found in every file
          1   some file had no code
          2   some input could not be read (takes precedence over 1)
          64  usage error
        """
    )

    @Option(name: .customLong("image"), parsing: .upToNextOption, help: ArgumentHelp("Image files (PNG, JPEG, PGM/PPM/PBM).", valueName: "FILE"))
    var images: [String] = []

    @Option(name: .customLong("symbology"), help: ArgumentHelp("Comma list of qr,code128,code39,ean13 (default: all four).", valueName: "LIST"))
    var symbology: String?

    @Flag(name: .customLong("json"), help: "Print JSON Lines, one object per code.")
    var json = false

    @Option(name: .customLong("config"), help: ArgumentHelp("Configuration file (sponsor prefixes, extra payload classes). Default: $EDGE_CONFIG, then /etc/edge/edge.json if present.", valueName: "FILE"))
    var config: String?

    @Option(name: .customLong("passes"), help: ArgumentHelp("Comma list of scan passes to run instead of the planned ones (e.g. plain,invert,upscale-2).", valueName: "LIST"))
    var passes: String?

    @Option(name: .customLong("budget-ms"), help: ArgumentHelp("Stop starting new passes on an image after this many milliseconds.", valueName: "MS"))
    var budgetMilliseconds: Int = 1000

    @Flag(name: .customLong("add-ons"), help: "Report EAN-2/EAN-5 add-ons with their EAN-13.")
    var addOns = false

    func validate() throws {
        if images.isEmpty { throw ValidationError("give at least one --image FILE") }
        if budgetMilliseconds < 0 { throw ValidationError("--budget-ms must not be negative") }
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
        let classifier: PayloadClassifier
        do {
            classifier = try ConfigFile.load(explicitPath: config).classifier()
        } catch {
            Output.stderr("edge: \(error)")
            throw ExitCode(2)
        }
        let options = ReaderOptions(formats: formats, eanAddOns: addOns, passes: passList,
                                    timeBudget: .milliseconds(budgetMilliseconds))
        let reader = try BarcodeReader(options: options)
        let printer = ResultPrinter(json: json)

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
}
