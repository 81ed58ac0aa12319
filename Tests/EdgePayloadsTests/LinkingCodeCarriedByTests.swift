import EdgeTestSupport
import XCTest
@testable import EdgePayloads

/// `LinkingCode(carriedBy:)`, the one place a payload becomes a linking code (issue #28): every
/// carrier SCN-6 accepts gives the code inside it, from every source, and agrees with what the
/// classifier (`edge scan`) says about the same payload, valid or not.
final class LinkingCodeCarriedByTests: XCTestCase {
    private let code = "AB7KXM4PQR"
    private var sponsors: SponsorTable!
    private var classifier: PayloadClassifier!

    override func setUpWithError() throws {
        sponsors = try Fixtures.sponsors
        classifier = try Fixtures.classifier
    }

    private func refusal(_ text: String, _ source: LinkingCodeInputSource = .typed, symbology: Symbology? = nil) -> LinkingCodeError? {
        do {
            _ = try LinkingCode(carriedBy: text, source: source, symbology: symbology, sponsors: sponsors)
            return nil
        } catch {
            return error
        }
    }

    func testEveryCarrierGivesTheCodeInsideFromEverySource() throws {
        for carrier in LinkingCodeCarriers.all(code) {
            for (source, symbology) in [(LinkingCodeInputSource.typed, nil), (.scanned, nil), (.scanned, Symbology.qr), (.scanned, .code128)] {
                let found = try LinkingCode(carriedBy: carrier.text, source: source, symbology: symbology, sponsors: sponsors)
                XCTAssertEqual(found.value, code, "\(carrier) \(source) \(symbology?.rawValue ?? "keyboard")")
                XCTAssertEqual(found.sponsor.sponsorID, "sponsor-a", "\(carrier)")
            }
            // `edge scan` says the same of the same payload.
            let classified = classifier.classify(text: carrier.text, symbology: .qr)
            XCTAssertEqual(classified.className, "linking-code", "\(carrier)")
            XCTAssertTrue(classified.valid, "\(carrier): \(classified.reason ?? "")")
            XCTAssertEqual(classified.details["formatted"], "AB-7KX-M4PQR", "\(carrier)")
            XCTAssertEqual(classified.details["carrier"], carrier.reported, "\(carrier)")
        }
    }

    func testACarrierWithAMalformedCodeGetsENR3ForTheCodeInside() throws {
        let cases: [(code: String, error: LinkingCodeErrorCode, message: String)] = [
            ("AB7KXM4PQ0", .lookAlikeCharacters, LinkingCodeError.lookAlikeMessage),
            // The sponsor table still decides the prefix, whatever carries the code.
            ("XY7KXM4PQR", .unknownPrefix, LinkingCodeError.unknownPrefixMessage),
        ]
        for (bad, expected, message) in cases {
            for carrier in LinkingCodeCarriers.all(bad) {
                for source in [LinkingCodeInputSource.typed, .scanned] {
                    let error = try XCTUnwrap(refusal(carrier.text, source), "\(carrier) \(bad) accepted")
                    XCTAssertEqual(error.code, expected, "\(carrier) \(bad)")
                    XCTAssertEqual(error.message, message, "\(carrier) \(bad)")
                    // Context says which carrier, never the code (ENR-8).
                    XCTAssertEqual(error.context["carrier"], carrier.reported == "bare" ? nil : carrier.reported, "\(carrier)")
                    XCTAssertFalse(error.context.values.contains { $0.contains("7KX") }, "\(error.context)")
                }
                let classified = classifier.classify(text: carrier.text, symbology: .qr)
                XCTAssertEqual(classified.className, "linking-code", "\(carrier) \(bad)")
                XCTAssertEqual(classified.reason, message, "\(carrier) \(bad): edge scan says otherwise")
            }
        }
        // One character short in a link's path: the count, not "no linking code".
        XCTAssertEqual(refusal("https://enroll.portal.example/l/AB7KXM4PQ")?.message, "9/10 characters")
        XCTAssertEqual(refusal(#"{"type":"LINK","code":"AB-7KX"}"#)?.message, "5/10 characters")
    }

    func testALinkTypedByAWedgeScannerIsNotCutToTwelveCharacters() throws {
        // ENR-2's 12-character cap is for a typed bare code; it would leave "HTTPS://ENRO" of a link.
        let long = "https://enroll.portal.example/some/longer/path/l/AB-7KX-M4PQR"
        XCTAssertEqual(try LinkingCode(carriedBy: long, source: .typed, sponsors: sponsors).value, code)
        // ... and still applies to a typed bare code: what follows the twelfth character is not taken.
        XCTAssertEqual(try LinkingCode(carriedBy: "  ab-7kx-m4pqr-and-more  ", source: .typed, sponsors: sponsors).value, code)
    }

    func testACarrierHoldingNoCodeSaysWhyAsEdgeScanDoes() throws {
        let cases: [(String, String)] = [
            (#"{"type":"LINK"}"#, "the linking-code JSON has no \"code\""),
            (#"{"type":"LINK","code":42}"#, "\"code\" must be a string, found a number"),
            (#"{"code":"AB7KXM4PQR"}"#, "the linking-code JSON has no \"type\": \"LINK\""),
            ("https://x.example/?code=AB7KXM4PQR&code=AB7KXM4PQT", "the link carries more than one code"),
        ]
        for (text, reason) in cases {
            let error = try XCTUnwrap(refusal(text), text)
            XCTAssertEqual(error.code, .unreadableCarrier, text)
            XCTAssertEqual(error.message, LinkingCodeError.unreadableCarrierMessage(reason), text)
            XCTAssertEqual(classifier.classify(text: text, symbology: .qr).reason, reason, text)
        }
        // Neither a code= item nor a code in the path; another card; JSON that does not parse.
        for text in ["https://enroll.portal.example/welcome", Fixtures.vendorCard(), #"{"type":"LINK","code":"AB7KXM4PQR""#, "[1, 2]"] {
            XCTAssertEqual(refusal(text)?.code, .unreadableCarrier, text)
        }
    }

    func testControlCharactersAreRefusedNeverStripped() throws {
        // Scanned normalisation keeps only letters and digits: without the check these would pass.
        for text in ["AB-7KX-M4PQR\u{0}", "AB7KX\u{200B}M4PQR", "https://x.example/?code=AB-7KX-M4PQR%00"] {
            for source in [LinkingCodeInputSource.typed, .scanned] {
                XCTAssertEqual(refusal(text, source)?.code, .invalidCharacters, "\(text.debugDescription) \(source)")
            }
        }
    }

    func testACameraReadOnASymbologyCodesAreNotPrintedOnIsRefusedAsEdgeScanSaysIt() throws {
        let error = try XCTUnwrap(refusal("AB-7KX-M4PQR", .scanned, symbology: .code39))
        XCTAssertEqual(error.code, .wrongSymbology)
        XCTAssertEqual(error.message, "Linking codes are printed as QR or Code 128 codes; this is a Code 39 barcode.")
        XCTAssertEqual(classifier.classify(text: "AB-7KX-M4PQR", symbology: .code39).reason,
                       "linking codes are printed as QR or Code 128 codes; this is a Code 39 barcode")
    }
}
