import EdgePayloads
import EdgeScanning

/// A camera's frames to classified reads (AGT-4, SCN-7): the reader's camera preset, the repeat
/// filter, then the classifier, in the one order every camera user needs: the agent's cameras
/// (`CameraSupervisor`), `edge scan --camera` and the clinic's linking-code camera.
///
/// Not thread-safe: one per camera thread (the reader keeps the frame history its preset uses,
/// the filter the codes in view).
public final class FramePipeline {
    /// A code that passed the repeat filter, with what the classifier made of it.
    public struct Read: Sendable {
        public let result: ScanResult
        public let classification: Classification
    }

    private let reader: BarcodeReader
    private var filter: RepeatFilter

    public init(options: ReaderOptions, repeatGap: Duration) throws(ScanError) {
        reader = try BarcodeReader(options: options)
        filter = RepeatFilter(gap: repeatGap)
    }

    /// The reads in `frame` that pass the repeat filter, classified by `classifier`. `repeatGap`,
    /// when given, replaces the filter's gap (SIGHUP changed it): a new gap starts a new filter.
    public func reads(in frame: SourceFrame, classifier: PayloadClassifier, repeatGap: Duration? = nil) throws(ScanError) -> [Read] {
        if let repeatGap, repeatGap != filter.gap { filter = RepeatFilter(gap: repeatGap) }
        return try reader.read(frame.luma).compactMap { result in
            filter.admit(result, at: frame.dequeuedAt) ? Read(result: result, classification: classifier.classify(result)) : nil
        }
    }
}
