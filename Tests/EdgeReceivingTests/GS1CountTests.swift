import EdgeAgent
import EdgeContract
import EdgeReceiving
import EdgeStandin
import EdgeTestSupport
import Foundation
import Testing

/// RCV-9 with SCN-13: with an order open, a GS1 label counts on the line of its GTIN, by the
/// quantity its (30) or (37) carries, whichever form it arrives in (a camera's element data, a
/// wedge's human-readable text); a GS1 label of an item not on the order is refused naming its
/// GTIN.
@Suite(.serialized) struct GS1CountTests {
    static let gs = "\u{1D}"

    @Test func gs1LabelsCountOnTheLineOfTheirGTIN() async throws {
        try await withStopping(DockFixture()) { fixture in
            let scanner = DockScanner(dock: fixture.dock, feed: KioskFeed(facts: StationFacts()))
            guard case .lookup = await scanner.read(DemoData.openOrder, className: "purchase-order", source: "dock", seenAt: 1) else {
                Issue.record("the order label did not open the order")
                return
            }
            #expect(scanner.openOrder?.poNumber == DemoData.openOrder)
            // Line 2 is the demo product, 4006381333931, whose GTIN-14 is 04006381333931.
            var totals: [Double] = []
            for (text, source) in [("0104006381333931" + "305" + Self.gs + "10L-7", "dock"),     // a camera's GS1-128: 5 items
                                   ("(01)04006381333931(10)L-7", KioskLookup.keyboard),          // typed, no count: 1
                                   ("(00)006141411234567890(02)04006381333931(37)12", KioskLookup.keyboard)] {  // a case of 12
                guard case .counted(let counted) = await scanner.read(text, className: "product", source: source, seenAt: 2) else {
                    Issue.record("\(text) was not counted")
                    continue
                }
                #expect(counted.lineNo == 2)
                totals.append(counted.total)
            }
            #expect(totals == [5, 6, 18])
            let receipt = try #require(try fixture.dock.receipts.receipt(DemoData.openOrder))
            #expect(receipt.line(2)?.received == 18)
            #expect(receipt.counts.map(\.quantity) == [12, 1, 5])

            guard case .notice(let refused) = await scanner.read("(01)09506000134352(30)2", className: "product", source: KioskLookup.keyboard, seenAt: 3) else {
                Issue.record("an item not on the order was counted")
                return
            }
            #expect(refused.kind == .notOnOrder)
            #expect(refused.message == "09506000134352 is not on \(DemoData.openOrder); it was not counted.")
            #expect(try fixture.dock.receipts.receipt(DemoData.openOrder)?.line(2)?.received == 18)
        }
    }

    /// Only GS1 data is read for its GTIN: an EAN-13 and a material label count as themselves.
    @Test func otherLabelsCountAsThemselves() async throws {
        try await withStopping(DockFixture()) { fixture in
            func item(_ text: String, _ className: String) -> String {
                let (code, quantity) = fixture.dock.countedItem(text, className: className)
                return code + " x " + (quantity.map { GRNValidator.text($0) } ?? "1")
            }
            #expect(item("4006381333931", "product") == "4006381333931 x 1")
            #expect(item("MAT-ST-4471", "material") == "MAT-ST-4471 x 1")
            #expect(item("(01)04006381333931(30)24", "product") == "04006381333931 x 24")
            #expect(item("]C10104006381333931", "product") == "04006381333931 x 1")
            #expect(item("(01)04006381333932(30)24", "product") == "(01)04006381333932(30)24 x 1")
        }
    }
}
