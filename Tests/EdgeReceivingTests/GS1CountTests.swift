import EdgeAgent
import EdgeContract
@testable import EdgeReceiving
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
                let (code, quantity, _) = fixture.dock.countedItem(text, className: className)
                return code + " x " + (quantity.map { GRNValidator.text($0) } ?? "1")
            }
            #expect(item("4006381333931", "product") == "4006381333931 x 1")
            #expect(item("MAT-ST-4471", "material") == "MAT-ST-4471 x 1")
            #expect(item("(01)04006381333931(30)24", "product") == "04006381333931 x 24")
            #expect(item("]C10104006381333931", "product") == "04006381333931 x 1")
            #expect(item("(01)04006381333932(30)24", "product") == "(01)04006381333932(30)24 x 1")
        }
    }

    /// RCV-10: the lot, expiry and serial a GS1 label carries are kept with its count, summed per
    /// line as the receipt shows them, and sent with the GRN; a serial counts once.
    @Test func gs1DataIsKeptOnItsLineAndSentWithTheGRN() async throws {
        try await withStopping(DockFixture()) { fixture in
            let scanner = DockScanner(dock: fixture.dock, feed: KioskFeed(facts: StationFacts()))
            _ = await scanner.read(DemoData.openOrder, className: "purchase-order", source: "dock", seenAt: 1)
            var messages: [String] = []
            for (text, source) in [("0104006381333931" + "17270300" + "10L-7" + Self.gs + "305", "dock"),   // camera: 5 of lot L-7, day 00
                                   ("(01)04006381333931(17)270415(10)L-8", KioskLookup.keyboard),
                                   ("(01)04006381333931(10)L-7(17)270300(30)2", KioskLookup.keyboard),          // the same lot again: 2
                                   ("(01)04006381333931(21)SN-0184", KioskLookup.keyboard),
                                   ("(01)04006381333931(17)200100(10)OLD", KioskLookup.keyboard)] {              // expired January 2020
                guard case .counted(let counted) = await scanner.read(text, className: "product", source: source, seenAt: 2) else {
                    Issue.record("\(text) was not counted")
                    continue
                }
                #expect(counted.lineNo == 2)
                messages.append(try #require(try fixture.dock.receipts.receipt(DemoData.openOrder)).counts[0].lot ?? "-")
            }
            #expect(messages == ["L-7", "L-8", "L-7", "-", "OLD"])
            guard case .notice(let again) = await scanner.read("(01)04006381333931(21)SN-0184", className: "product", source: "dock", seenAt: 3) else {
                Issue.record("a serial was counted twice")
                return
            }
            #expect(again.kind == .alreadyCounted)
            #expect(again.message == "Serial SN-0184 was already counted on line 2; it was not counted again.")

            let receipt = try #require(try fixture.dock.receipts.receipt(DemoData.openOrder))
            let expected = [GRNLine.Tracking(lot: "L-7", expiry: "2027-03-31", quantity: 7), GRNLine.Tracking(lot: "L-8", expiry: "2027-04-15", quantity: 1),
                            GRNLine.Tracking(serial: "SN-0184", quantity: 1), GRNLine.Tracking(lot: "OLD", expiry: "2020-01-31", quantity: 1)]
            #expect(receipt.line(2)?.received == 10)
            #expect(receipt.line(2)?.tracking == expected)
            #expect(receipt.counts.first?.expiry == "2020-01-31")
            #expect(receipt.counts.dropFirst().first?.serial == "SN-0184")

            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: receipt.grnLines), receiptRevision: receipt.revision)
            #expect(confirmation.request.lines == [GRNLine(lineNo: 2, received: 10, tracking: expected)])
            #expect(try await ConfirmationTests.settle(fixture, confirmation.idempotencyKey) == .applied)
            #expect(fixture.standin.backend.appliedGRNs.last?.lines == confirmation.request.lines)
            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 1)
            let document = ConfirmationDocument(confirmation, outcome: .applied, photos: [])
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/receive-confirmation.schema.json"))
        }
    }

    /// The words a count says aloud carry its GS1 data, and an expiry already past.
    @Test func aCountSaysItsLotAndAnExpiryAlreadyPast() {
        #expect(DockScanner.traced(ReceiptStore.Trace(lot: "L-7", expiry: "2027-03-31"), today: "2026-11-28") == " Lot L-7, expires 2027-03-31.")
        #expect(DockScanner.traced(ReceiptStore.Trace(expiry: "2026-11-27", serial: "S1"), today: "2026-11-28")
                == " Serial S1, expires 2026-11-27. EXPIRED: flag the line damaged if it is refused.")
        #expect(DockScanner.traced(.none, today: "2026-11-28") == "")
    }

    /// A quantity typed below what was scanned with GS1 data would tell the backend of lots that
    /// did not arrive: the confirmation is refused and nothing is queued.
    @Test func aQuantityTypedBelowItsTracedCountsIsRefused() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try #require(try await fixture.dock.lookupOrder(DemoData.openOrder).order)
            let store = fixture.dock.receipts
            _ = try store.count("04006381333931", quantity: 5, trace: ReceiptStore.Trace(lot: "L-7"), source: "dock", order: order, now: 1)
            var receipt = try store.edit(order, lineNo: 2, received: "3", discrepancy: .short, note: nil, now: 2)
            let typedBelow = try await #require(throws: ReceivingError.self) {
                try await fixture.dock.confirm(GRNDraft(poNumber: order.poNumber, lines: receipt.grnLines), receiptRevision: receipt.revision)
            }
            #expect(typedBelow.message == "Line 2: 5 were scanned with a lot, expiry or serial but 3 is entered; undo the extra counts or correct the quantity.")
            receipt = try store.edit(order, lineNo: 2, received: nil, discrepancy: nil, note: nil, now: 3)
            _ = try store.edit(order, lineNo: 1, received: "1", discrepancy: nil, note: nil, now: 4)
            receipt = try #require(try store.receipt(order.poNumber))
            let cleared = try await #require(throws: ReceivingError.self) {
                try await fixture.dock.confirm(GRNDraft(poNumber: order.poNumber, lines: receipt.grnLines), receiptRevision: receipt.revision)
            }
            #expect(cleared.message == "Line 2 has items scanned with a lot, expiry or serial but no quantity; enter it or undo those counts.")
            #expect(try fixture.outbox.status().depth == 0)
            #expect(try store.receipt(order.poNumber) != nil, "the receipt is kept")
            // A label with a serial and a count is refused (a serial names one item).
            let both = try #require(throws: ReceivingError.self) {
                try store.count("04006381333931", quantity: 3, trace: ReceiptStore.Trace(serial: "S1"), source: "dock", order: order, now: 5)
            }
            #expect(both.code == .invalidQuantity)
        }
    }

    /// RCV-9's pack size: one scan of an item whose order line declares a pack counts the pack; a
    /// code that carries its own count counts that; a pack size no count can be is refused.
    @Test func aLinesPackSizeIsWhatOneScanCounts() async throws {
        try await withStopping(DockFixture()) { fixture in
            let po = "PO-2026-00090"
            let vendor = try #require(fixture.standin.backend.purchaseOrder(DemoData.openOrder)?.vendorID)
            fixture.standin.backend.putPurchaseOrder(PurchaseOrder(
                poNumber: po, vendorID: vendor, status: .open,
                lines: [PurchaseOrderLine(lineNo: 1, item: DemoData.materialCode, description: "Bracket, carton of 12", ordered: 48, received: 0, unit: "EA", packSize: 12),
                        PurchaseOrderLine(lineNo: 2, item: "04006381333931", description: "Pens, box of 10", ordered: 50, received: 0, unit: "EA", packSize: 10),
                        PurchaseOrderLine(lineNo: 3, item: "MAT-CB-0210", description: "Cable", ordered: 5, received: 0, unit: "m", packSize: 0)],
                updatedAt: "2026-11-20T08:00:00+00:00"))
            let scanner = DockScanner(dock: fixture.dock, feed: KioskFeed(facts: StationFacts()))
            _ = await scanner.read(po, className: "purchase-order", source: "dock", seenAt: 1)
            #expect(scanner.openOrder?.poNumber == po)
            let order = try await fixture.dock.lookupOrder(po)
            let document = OrderDocument(order, now: fixture.dock.now)
            #expect(document.text.contains { $0.contains("Bracket, carton of 12 (pack of 12)") })
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/receive-order.schema.json"))
            var totals: [Double] = []
            for (text, className) in [(DemoData.materialCode, "material"), (DemoData.materialCode, "material"), ("4006381333931", "product"),
                                      ("(01)04006381333931(30)3", "product")] {
                guard case .counted(let counted) = await scanner.read(text, className: className, source: KioskLookup.keyboard, seenAt: 2) else {
                    Issue.record("\(text) was not counted")
                    continue
                }
                totals.append(counted.total)
            }
            #expect(totals == [12, 24, 10, 13])
            guard case .notice(let refused) = await scanner.read("MAT-CB-0210", className: "material", source: KioskLookup.keyboard, seenAt: 3) else {
                Issue.record("a pack size of 0 counted")
                return
            }
            #expect(refused.kind == .failed)
            #expect(refused.message == "Line 3's pack size must be 1 to 1000000 items (0 given).")
        }
    }
}
