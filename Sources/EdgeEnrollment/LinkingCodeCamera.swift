import EdgeAgent
import EdgePayloads
import EdgeScanning

/// Reads a linking code held to a camera (ENR-2: scanned content keeps only the valid
/// alphanumerics): frames go through the camera preset of the reader until one carries a code
/// that passes local validation (ENR-3). A code that fails it is not sent anywhere; reading goes
/// on, and if time runs out the last such failure is what the coordinator is told.
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
                    found = try LinkingCode(parsing: read.result.text, source: .scanned, sponsors: sponsors)
                    return false
                } catch {
                    lastRefusal = error
                }
            }
            return failure == nil
        })
        if let found { return found }
        if let failure { throw EnrollmentError(.camera, "The camera \(source.origin) cannot be used: \(failure)") }
        if let lastRefusal { throw EnrollmentError(.localValidation, lastRefusal.message, context: ["reason": lastRefusal.code.rawValue]) }
        throw EnrollmentError(.noCodeSeen, "No linking code was seen on \(source.origin); hold the code steady in front of the camera and try again.")
    }
}
