import EdgeAgent
import EdgeImaging
import EdgePayloads
import EdgeScanning
import EdgeTestSupport
import Foundation
import Testing

/// The one camera loop's frame step: reader, repeat filter, classifier (issue #27 item 4).
@Suite struct FramePipelineTests {
    @Test func aCodeInViewIsReportedOnceAGapAndClassified() throws {
        let image = try ImageLoader.load(path: PackageFiles.path("samples/po-code128.png"))
        // The still-image options: every frame fully read, so what is dropped is the filter's doing.
        let pipeline = try FramePipeline(options: ReaderOptions(), repeatGap: .seconds(1))
        let classifier = try StationConfiguration.parse(Data("{}".utf8)).classifier()
        let start = ContinuousClock.now
        func reads(at offset: Duration, gap: Duration? = nil) throws -> [FramePipeline.Read] {
            try image.withView { view throws(ScanError) in
                try pipeline.reads(in: SourceFrame(sequence: 0, dequeuedAt: start + offset, luma: view), classifier: classifier, repeatGap: gap)
            }
        }
        let first = try reads(at: .zero)
        #expect(first.map(\.classification.className) == [BuiltInPayloadClass.purchaseOrder.rawValue])
        #expect(first.first?.classification.valid == true)
        // The same label still in view within the gap: not again; after it: again.
        #expect(try reads(at: .milliseconds(500)).isEmpty)
        #expect(try reads(at: .milliseconds(1600)).count == 1)
        // A new gap (SIGHUP) starts a new filter: the label counts at once.
        #expect(try reads(at: .milliseconds(1700), gap: .seconds(5)).count == 1)
        #expect(try reads(at: .milliseconds(1800), gap: .seconds(5)).isEmpty)
    }
}
