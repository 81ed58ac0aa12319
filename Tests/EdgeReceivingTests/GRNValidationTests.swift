import EdgeContract
import EdgeReceiving
import Testing

/// RCV-2's quantity rules, case by case, with the exact messages the operator reads.
@Suite struct GRNValidationTests {
    static let order = PurchaseOrder(poNumber: "PO-2026-00042", vendorID: "v", status: .partiallyReceived, lines: [
        PurchaseOrderLine(lineNo: 1, item: "MAT-ST-4471", description: "Steel bracket", ordered: 120, received: 20, unit: "EA"),
        PurchaseOrderLine(lineNo: 2, item: "4006381333931", description: "Fineliner", ordered: 50, received: 0, unit: "EA"),
        PurchaseOrderLine(lineNo: 3, item: "MAT-CB-0210", description: "Copper cable", ordered: 250.5, received: 0, unit: "m"),
    ], updatedAt: "2026-11-18T16:02:11+00:00")

    static func errors(_ lines: [GRNLine]) -> [String] {
        GRNValidator.validate(GRNDraft(poNumber: order.poNumber, lines: lines), against: order).errors.map(\.message)
    }

    @Test func aCompleteDeliveryIsValidWithoutSuggestions() {
        let result = GRNValidator.validate(GRNDraft(poNumber: Self.order.poNumber, lines: [
            GRNLine(lineNo: 1, received: 100), GRNLine(lineNo: 2, received: 50), GRNLine(lineNo: 3, received: 250.5)]), against: Self.order)
        #expect(result.isValid && result.suggestions.isEmpty)
    }

    @Test func negativeQuantitiesAreRefused() {
        #expect(Self.errors([GRNLine(lineNo: 2, received: -3)]) == ["Line 2: the received quantity must not be negative (-3 EA)."])
    }

    @Test func quantitiesMustFitTheUnitsPrecision() {
        #expect(Self.errors([GRNLine(lineNo: 1, received: 2.5)]) == ["Line 1: 2.5 EA is not a whole number; EA is counted in whole units."])
        #expect(Self.errors([GRNLine(lineNo: 3, received: 10.1234)]) == ["Line 3: 10.1234 m has more than 3 decimals."])
        #expect(Self.errors([GRNLine(lineNo: 3, received: 0.1)]).isEmpty, "0.1 m is a millimetre-precise length")
    }

    @Test func excessMustBeFlagged() {
        #expect(Self.errors([GRNLine(lineNo: 1, received: 101)])
                == ["Line 1: 101 EA received but only 100 EA outstanding; flag the line as excess."])
        #expect(Self.errors([GRNLine(lineNo: 1, received: 101, discrepancy: .excess, note: "one extra")]).isEmpty)
        #expect(Self.errors([GRNLine(lineNo: 1, received: 100, discrepancy: .excess)])
                == ["Line 1: flagged excess, but 100 EA is not more than the 100 EA outstanding."])
    }

    @Test func aShortLineSuggestsShortAndAWrongShortFlagIsRefused() {
        let result = GRNValidator.validate(GRNDraft(poNumber: Self.order.poNumber, lines: [GRNLine(lineNo: 2, received: 8)]), against: Self.order)
        #expect(result.isValid)
        #expect(result.suggestions.map(\.message) == ["Line 2: 8 of 50 EA outstanding received; if the rest is not coming, flag the line as short."])
        #expect(Self.errors([GRNLine(lineNo: 2, received: 8, discrepancy: .short, note: "two cartons missing")]).isEmpty)
        #expect(Self.errors([GRNLine(lineNo: 2, received: 50, discrepancy: .short)])
                == ["Line 2: flagged short, but 50 EA covers the 50 EA outstanding."])
    }

    @Test func damagedNeedsANote() {
        #expect(Self.errors([GRNLine(lineNo: 3, received: 250.5, discrepancy: .damaged)])
                == ["Line 3: flagged damaged without a note; say what is damaged (LINE=QTY:damaged:NOTE)."])
    }

    @Test func unknownRepeatedAndMissingLines() {
        #expect(Self.errors([GRNLine(lineNo: 4, received: 1)]) == ["Line 4: PO-2026-00042 has no line 4 (its lines are 1, 2, 3)."])
        #expect(Self.errors([GRNLine(lineNo: 2, received: 1), GRNLine(lineNo: 2, received: 1)])
                == ["Line 2: the line is given twice; give each line once with the total received in this delivery."])
        #expect(Self.errors([]) == ["The GRN has no lines; give at least one as LINE=QUANTITY."])
    }

    @Test func lineArgumentsParse() throws {
        #expect(try GRNDraft.parseLine("1=10") == GRNLine(lineNo: 1, received: 10))
        #expect(try GRNDraft.parseLine("2=8:short:two cartons missing: see photo")
                == GRNLine(lineNo: 2, received: 8, discrepancy: .short, note: "two cartons missing: see photo"))
        #expect(try GRNDraft.parseLine("3=2.5::scuffed") == GRNLine(lineNo: 3, received: 2.5, note: "scuffed"))
        #expect(try GRNDraft.parseLine("2=-3").received == -3)
        for bad in ["10", "x=1", "0=1", "1=", "1=1e3", "1=ten", "1=.5", "1=5.", "1=1:broken"] {
            let error = #expect(throws: ReceivingError.self) { try GRNDraft.parseLine(bad) }
            #expect(error?.code == .invalidQuantity, "\(bad)")
        }
        let flag = #expect(throws: ReceivingError.self) { try GRNDraft.parseLine("1=1:broken") }
        #expect(flag?.message == "Line 1: broken is not a discrepancy flag; use short, excess or damaged.")
    }
}
