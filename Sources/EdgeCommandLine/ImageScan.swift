import EdgeImaging
import EdgePayloads
import EdgeScanning

/// `edge scan --image FILE...`: each file loaded, decoded, classified and printed in turn. The
/// `edge` front and edge-agent run this same loop, so a file reads the same in either.
public struct ImageScan {
    public let images: [String]
    public let classifier: PayloadClassifier
    public let printer: ResultPrinter
    private let reader: BarcodeReader

    /// Fails before anything is printed when the options cannot make a reader.
    public init(images: [String], options: ReaderOptions, classifier: PayloadClassifier, printer: ResultPrinter) throws(ScanError) {
        self.images = images
        self.classifier = classifier
        self.printer = printer
        reader = try BarcodeReader(options: options)
    }

    /// The exit status: 2 when some file could not be read (it wins), 1 when some file had no
    /// code, else 0. A bad file is reported and the next one is still scanned.
    public func run() -> Int32 {
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
                printer.print(ScanRecord(file: path, result: result, classification: classifier.classify(result)))
            }
        }
        return sawUnreadable ? 2 : sawEmpty ? 1 : 0
    }
}
