import EdgeAgent
import EdgePayloads
import EdgeScanning

/// Reads a linking code held to a camera: frames go through the camera preset of the reader
/// until one the classifier calls `linking-code` carries, in any SCN-6 carrier (bare, URL, JSON;
/// `LinkingCode(carriedBy:)`), a code that passes local validation (ENR-2 scanned, ENR-3). A code
/// that fails it is not sent anywhere; reading goes on, and if time runs out the last such
/// failure is what the coordinator is told.
public enum LinkingCodeCamera {
    public static func read(from source: any FrameSource, sponsors: SponsorTable, classifier: PayloadClassifier,
                            timeout: Duration, shouldStop: @escaping () -> Bool = { false }) throws(EnrollmentError) -> LinkingCode {
        let pipeline: FramePipeline
        do {
            // No repeat gap: a code refused locally and shown again is checked again (the
            // coordinator may have corrected the sponsor table meanwhile); it costs nothing sent.
            pipeline = try FramePipeline(options: .cameraFrame(), repeatGap: .zero)
        } catch {
            throw EnrollmentError(.camera, "The barcode reader could not start: \(error)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var found: LinkingCode?
        var lastRefusal: LinkingCodeError?
        var failure: String?
        source.capture(shouldStop: { shouldStop() || clock.now >= deadline }, onEvent: { event in
            if case .failed(let reason) = event { failure = reason }
        }, onFrame: { frame in
            for read in (try? pipeline.reads(in: frame, classifier: classifier)) ?? []
            where read.classification.className == BuiltInPayloadClass.linkingCode.rawValue {
                do throws(LinkingCodeError) {
                    found = try LinkingCode(carriedBy: read.result.text, source: .scanned, symbology: Symbology(read.result.format),
                                            sponsors: sponsors)
                    return false
                } catch {
                    lastRefusal = error
                }
            }
            return failure == nil
        })
        if let found { return found }
        if let failure { throw EnrollmentError(.camera, "The camera \(source.origin) cannot be used: \(failure)") }
        if let lastRefusal {
            throw EnrollmentError(.localValidation, lastRefusal.message,
                                  context: ["reason": lastRefusal.code.rawValue].merging(lastRefusal.context) { own, _ in own })
        }
        throw EnrollmentError(.noCodeSeen, "No linking code was seen on \(source.origin); hold the code steady in front of the camera and try again.")
    }
}
