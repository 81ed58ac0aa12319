import EdgeAgent
import EdgeContract
import EdgeEnrollment
import EdgePayloads
import EdgeStandin
import EdgeTestSupport
import Foundation
import Testing

/// Issue #28: every carrier SCN-6 accepts (bare, formatted, URL query, URL path, JSON) enrolls
/// through `Enrollments` as typed or scanned input and through `LinkingCodeCamera` from QR images
/// of it, against the stand-in portal; a carrier with a malformed code gets ENR-3's message for
/// the code inside, and nothing is sent.
@Suite(.serialized) struct LinkingCodeCarrierTests {
    static let carriers = LinkingCodeCarriers.all(DemoData.linkingCode)

    /// A clinic whose ENR-7 window takes every attempt these tests make.
    static func clinic() async throws -> Clinic {
        let clinic = try await Clinic()
        clinic.settings.attemptLimit = 100
        return clinic
    }

    @Test func everyCarrierEnrollsAsTypedOrScannedInput() async throws {
        try await withStopping(Self.clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            for carrier in Self.carriers {
                for source in [LinkingCodeInputSource.typed, .scanned] {
                    let enrollment = try await enrollments.enroll(input: carrier.text, source: source)
                    // enr-ab-0001 is the stand-in's enrollment for DemoData.linkingCode alone.
                    #expect(enrollment.serverEnrollmentID == "enr-ab-0001", "\(carrier) \(source)")
                    #expect(enrollment.state == .studyStartPending, "\(carrier) \(source)")
                    #expect(enrollment.maskedCode == "AB-***-*****")
                }
            }
            #expect(clinic.requests(APIPath.enrollmentLink).count == Self.carriers.count * 2)
            for carrier in Self.carriers where carrier.reported != "bare" {
                #expect(!clinic.logs.text.contains(carrier.text), "a \(carrier) carrier logged")
            }
        }
    }

    @Test func aCarrierWithAMalformedCodeGetsENR3ForTheCodeInsideAndSendsNothing() async throws {
        try await withStopping(Self.clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            for (bad, message) in [("AB7KXM4PQ0", LinkingCodeError.lookAlikeMessage), ("XY7KXM4PQR", LinkingCodeError.unknownPrefixMessage)] {
                for carrier in LinkingCodeCarriers.all(bad) {
                    let error = try #require(try await EnrollmentsTests.refusal { try await enrollments.enroll(input: carrier.text, source: .typed) },
                                             "\(carrier) \(bad) accepted")
                    #expect(error.code == .localValidation, "\(carrier)")
                    #expect(error.message == message, "\(carrier)")
                }
            }
            #expect(clinic.requests(APIPath.enrollmentLink).isEmpty)
            #expect(try enrollments.store.all().isEmpty)
        }
    }

    @Test func everyCarrierHeldToTheCameraEnrolls() async throws {
        try await withStopping(Self.clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let classifier = PayloadClassifier(sponsors: enrollments.sponsors)
            for carrier in Self.carriers {
                let image = try LinkingCodeCarriers.qrImage(carrier.text, named: carrier.name, in: clinic.directory.path)
                let code = try LinkingCodeCamera.read(from: ReplayFrameSource(files: [image], fps: 10), sponsors: enrollments.sponsors,
                                                      classifier: classifier, timeout: .seconds(30))
                #expect(code.value == DemoData.linkingCode, "\(carrier)")
                let enrollment = try await enrollments.enroll(code)
                #expect(enrollment.serverEnrollmentID == "enr-ab-0001", "\(carrier)")
            }
        }
    }

    /// A sponsor prefix the table does not know, in a link: ENR-3's "not recognized" for the code
    /// inside (parsing the whole link, as before issue #28, said "look-alike" for every link).
    @Test func aMalformedCodeInALinkHeldToTheCameraGetsENR3() async throws {
        try await withStopping(Self.clinic()) { clinic in
            let enrollments = try clinic.enrollments()
            let image = try LinkingCodeCarriers.qrImage("https://enroll.portal.example/link?code=XY-7KX-M4PQR", named: "unknown-prefix", in: clinic.directory.path)
            // The camera reads on until the time is up, then says why the code it saw cannot be used.
            var refusal: EnrollmentError?
            do throws(EnrollmentError) {
                _ = try LinkingCodeCamera.read(from: ReplayFrameSource(files: [image], fps: 10), sponsors: enrollments.sponsors,
                                               classifier: PayloadClassifier(sponsors: enrollments.sponsors), timeout: .seconds(3))
            } catch {
                refusal = error
            }
            let error = try #require(refusal)
            #expect(error.code == .localValidation)
            #expect(error.message == LinkingCodeError.unknownPrefixMessage)
            #expect(error.context["carrier"] == "url-query")
        }
    }
}
