import XCTest
@testable import EdgePayloads

final class LinkingCodeNormalizerTests: XCTestCase {
    func testTypedStripsDashesAndSpacesAndUppercases() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize("ab-cde-fghjk", source: .typed), "ABCDEFGHJK")
        XCTAssertEqual(LinkingCodeNormalizer.normalize("AB CDE FGHJK", source: .typed), "ABCDEFGHJK")
        XCTAssertEqual(LinkingCodeNormalizer.normalize("abcdefghjk", source: .typed), "ABCDEFGHJK")
    }

    func testTypedTrimsSurroundingWhitespaceBeforeTheCap() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize("   AB-CDE-FGHJK  \n", source: .typed), "ABCDEFGHJK")
    }

    func testTypedTakesAtMostTwelveCharacters() {
        // 10 + 2 dashes fits exactly; anything after the 12th typed character is not taken.
        XCTAssertEqual(LinkingCodeNormalizer.normalize("AB-CDE-FGHJKLMN", source: .typed), "ABCDEFGHJK")
        XCTAssertEqual(LinkingCodeNormalizer.normalize("ABCDEFGHJKLMNP", source: .typed), "ABCDEFGHJKLM")
        XCTAssertEqual(LinkingCodeNormalizer.maxTypedLength, 12)
    }

    func testTypedTreatsTypographicDashesAsDashes() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize("AB\u{2013}CDE\u{2014}FGHJK", source: .typed), "ABCDEFGHJK")
    }

    func testTypedKeepsOtherCharactersForTheValidator() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize("ab#cd", source: .typed), "AB#CD")
        XCTAssertEqual(LinkingCodeNormalizer.normalize("o1", source: .typed), "O1")
        // ASCII-only upper-casing: "ß" does not become "SS".
        XCTAssertEqual(LinkingCodeNormalizer.normalize("ß", source: .typed), "ß")
    }

    func testScannedKeepsOnlyAsciiAlphanumerics() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize("  ab.cde/fghjk!\n", source: .scanned), "ABCDEFGHJK")
        XCTAssertEqual(LinkingCodeNormalizer.normalize("AB-CDÉ-FGHJK", source: .scanned), "ABCDFGHJK")
        // Look-alikes survive so they can be reported.
        XCTAssertEqual(LinkingCodeNormalizer.normalize("AB-CDE-FGH10", source: .scanned), "ABCDEFGH10")
    }

    func testScannedHasNoLengthCap() {
        XCTAssertEqual(LinkingCodeNormalizer.normalize(String(repeating: "A", count: 30), source: .scanned).count, 30)
    }
}
