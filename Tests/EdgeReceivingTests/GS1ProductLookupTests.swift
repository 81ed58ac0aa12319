import EdgeContract
import EdgePayloads
import EdgeReceiving
import EdgeStandin
import EdgeTestSupport
import Foundation
import Testing

/// SCN-13 with RCV-6 over real HTTP to the stand-in: a GS1-128 or GS1 QR label names its
/// product by GTIN, in the forms the dock meets (a camera read as its scan event stores it, typed
/// or wedge text), and carries its GS1 data to the card; invalid GS1 data is refused before
/// anything is sent.
@Suite(.serialized) struct GS1ProductLookupTests {
    static let gs = "\u{1D}"
    /// The demo product's EAN-13 as a GTIN-14, with a lot and an expiry.
    static let elementData = "0104006381333931" + "10L-2026/7" + gs + "17261100"
    static let humanReadable = "(01)04006381333931(10)L-2026/7(17)261100"

    @Test(arguments: [elementData, "]C1" + elementData, humanReadable])
    func aGS1LabelNamesItsProductWithItsData(_ text: String) async throws {
        try await withStopping(DockFixture()) { fixture in
            let lookup = try await fixture.dock.product(text)
            #expect(lookup.gtin == DemoData.productGTIN && lookup.kind == "gtin")
            #expect(lookup.product?.name == "Fineliner pen, black, 0.4 mm")
            #expect(lookup.gs1?.lot == "L-2026/7")
            #expect(lookup.gs1?.expiry?.iso == "2026-11-30")
            let document = LookupDocument(product: lookup)
            #expect(document.gs1Text == Self.humanReadable)
            #expect(document.text.contains("GS1 \(Self.humanReadable): lot L-2026/7, expiry 2026-11-30"))
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/lookup.schema.json"))
        }
    }

    /// A case-level GTIN-14 (indicator 1) is a product of its own: looked up as 14 digits, and
    /// "no product data" is still an answer the schema allows.
    @Test func aCaseLevelGTIN14IsLookedUpAsItself() async throws {
        try await withStopping(DockFixture()) { fixture in
            let lookup = try await fixture.dock.product("(01)14006381333938(30)12")
            #expect(lookup.gtin == "14006381333938" && lookup.kind == "gtin-14" && lookup.product == nil)
            #expect(lookup.gs1?.count == 12)
            try PythonCheck.validate(json: try fixture.json(LookupDocument(product: lookup)), schema: PackageFiles.path("models/lookup.schema.json"))
        }
    }

    @Test func invalidGS1DataIsRefusedBeforeAnythingIsSent() async throws {
        try await withStopping(DockFixture()) { fixture in
            let before = fixture.requests(APIPath.scanBarcode)
            let misread = await #expect(throws: ReceivingError.self) { try await fixture.dock.product("(01)04006381333932(10)A") }
            #expect(misread?.code == .badCheckDigit)
            #expect(misread?.message == "(01)04006381333932(10)A is not a valid GS1 product label: (01) GTIN: check digit is 2, expected 1.")
            let badDate = await #expect(throws: ReceivingError.self) { try await fixture.dock.product(Self.elementData.replacingOccurrences(of: "261100", with: "261131")) }
            #expect(badDate?.code == .invalidInput)
            #expect(badDate?.message.contains("(17) USE BY or EXPIRY: 261131 is not a date (YYMMDD): November 2026 has 30 days, not 31") == true)
            let pallet = await #expect(throws: ReceivingError.self) { try await fixture.dock.product("(00)006141411234567890") }
            #expect(pallet?.code == .invalidInput)
            #expect(pallet?.message == "(00)006141411234567890 is not a valid GS1 product label: it names no product (no GTIN, AI 01 or 02).")
            #expect(fixture.requests(APIPath.scanBarcode) == before, "nothing invalid reaches the backend")
        }
    }

    /// The kiosk's typed input: GS1's human-readable form and a wedge's ]C1 are product labels;
    /// the same digits bare stay what they were.
    @Test func typedGS1IsAProductLabel() throws {
        let classifier = PayloadClassifier(sponsors: .empty)
        #expect(KioskLookup.typedClass(Self.humanReadable, classifier: classifier) == "product")
        #expect(KioskLookup.typedClass("]C1" + Self.elementData, classifier: classifier) == "product")
        #expect(KioskLookup.typedClass("(00)006141411234567890", classifier: classifier) == "gs1")
        #expect(KioskLookup.typedClass("4006381333931", classifier: classifier) == "product")
        #expect(KioskLookup.typedClass("01040063813339311", classifier: classifier) == "unknown")
    }
}
