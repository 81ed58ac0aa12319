import EdgeAgent
import EdgeContract
import EdgeImaging
import EdgeReceiving
import EdgeStandin
import EdgeStore
import EdgeTestSupport
import Foundation
import GRDB
import Testing

/// RCV-8 and RCV-9 on the real station database: receipts in progress, scan to count, undo,
/// discard, and the confirmation that ends a receipt exactly once.
@Suite struct ReceiptStoreTests {
    /// The demo's open order: line 1 the material MAT-ST-4471 (120 EA), line 2 the GTIN
    /// 4006381333931 (50 EA), line 3 MAT-CB-0210 (250.5 m).
    private func openOrder(_ fixture: DockFixture) async throws -> PurchaseOrder {
        try #require(try await fixture.dock.lookupOrder(DemoData.openOrder).order)
    }

    @Test func countsEditsAndUndoAreKeptInTheDatabaseAsTheyHappen() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try await openOrder(fixture)
            let store = fixture.dock.receipts
            #expect(try store.receipt(order.poNumber) == nil)

            // The material label counts one on line 1; the same GTIN as EAN-13 and GTIN-14 on line 2.
            var counted = try store.count(DemoData.materialCode, source: "dock", order: order, now: 10)
            #expect(counted.lineNo == 1 && counted.total == 1 && !counted.needsExcessFlag)
            counted = try store.count(" \(DemoData.productGTIN) ", source: KioskLookup.keyboard, order: order, now: 11)
            #expect(counted.lineNo == 2 && counted.total == 1)
            counted = try store.count("0" + DemoData.productGTIN, quantity: 4, source: KioskLookup.keyboard, order: order, now: 12)
            #expect(counted.lineNo == 2 && counted.total == 5)
            #expect(counted.receipt.revision == 3 && counted.receipt.counts.map(\.lineNo) == [2, 2, 1])

            // A second store on the same file (another process, a restart) reads the same receipt.
            let reopened = ReceiptStore(database: try EdgeDatabase(path: fixture.outbox.database.path))
            #expect(try reopened.receipt(order.poNumber) == counted.receipt)

            // Typing replaces what was counted; counting adds to what was typed.
            var receipt = try store.edit(order, lineNo: 2, received: "20", discrepancy: .short, note: "two boxes", now: 13)
            #expect(receipt.line(2) == Receipt.Line(lineNo: 2, received: 20, discrepancy: .short, note: "two boxes"))
            counted = try store.count(DemoData.productGTIN, source: KioskLookup.keyboard, order: order, now: 14)
            #expect(counted.total == 21 && counted.receipt.line(2)?.discrepancy == .short)

            // Undo takes back the newest count; twice, and the typed value's count goes too.
            receipt = try #require(try store.undo(order.poNumber, now: 15))
            #expect(receipt.line(2)?.received == 20)
            receipt = try #require(try store.undo(order.poNumber, now: 16))
            #expect(receipt.line(2)?.received == 16, "typed over since: the count's 4 is taken off what is there")
            #expect(receipt.counts.map(\.lineNo) == [2, 1])

            // A stale revision changes nothing.
            #expect(throws: ReceivingError.self) {
                try store.edit(order, lineNo: 1, received: "9", discrepancy: nil, note: nil, revision: 1, now: 17)
            }
            #expect(try store.receipt(order.poNumber)?.line(1)?.received == 1)

            #expect(try store.discard(order.poNumber))
            #expect(try store.receipt(order.poNumber) == nil)
            #expect(try !store.discard(order.poNumber))
            let left = try await fixture.outbox.database.dbWriter.read { db in
                try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM receiving_receipt_lines) + (SELECT COUNT(*) FROM receiving_receipt_counts)")
            }
            #expect(left == 0, "discarding removes the lines and counts with the receipt")
        }
    }

    @Test func anItemNotOnTheOrderIsRefusedByNameAndChangesNothing() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try await openOrder(fixture)
            let store = fixture.dock.receipts
            _ = try store.count(DemoData.materialCode, source: "dock", order: order, now: 1)
            let before = try store.receipt(order.poNumber)
            let error = try #require(throws: ReceivingError.self) {
                try store.count("MAT-XX-0001", source: "dock", order: order, now: 2)
            }
            #expect(error.code == .notOnOrder && error.message.contains("MAT-XX-0001") && error.message.contains(order.poNumber))
            #expect(try store.receipt(order.poNumber) == before)
            // Bad values are refused with the line named; a line the order does not have too.
            #expect(throws: ReceivingError.self) { try store.edit(order, lineNo: 1, received: "-1", discrepancy: nil, note: nil, now: 3) }
            #expect(throws: ReceivingError.self) { try store.edit(order, lineNo: 1, received: "1e9", discrepancy: nil, note: nil, now: 3) }
            #expect(throws: ReceivingError.self) { try store.edit(order, lineNo: 9, received: "1", discrepancy: nil, note: nil, now: 3) }
            #expect(throws: ReceivingError.self) {
                try store.edit(order, lineNo: 1, received: "1", discrepancy: nil, note: String(repeating: "x", count: 501), now: 3)
            }
            #expect(throws: ReceivingError.self) { try store.count(DemoData.materialCode, quantity: 0, source: "dock", order: order, now: 3) }
            #expect(try store.receipt(order.poNumber) == before)
        }
    }

    @Test func countingPastWhatIsOutstandingAsksForTheExcessFlag() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try #require(try await fixture.dock.lookupOrder(DemoData.partialOrder).order)  // 60 ordered, 20 received
            let store = fixture.dock.receipts
            _ = try store.edit(order, lineNo: 1, received: "39", discrepancy: nil, note: nil, now: 1)
            var counted = try store.count(DemoData.materialCode, source: "dock", order: order, now: 2)
            #expect(counted.total == 40 && counted.outstanding == 40 && !counted.needsExcessFlag)
            counted = try store.count(DemoData.materialCode, source: "dock", order: order, now: 3)
            #expect(counted.total == 41 && counted.needsExcessFlag)
            _ = try store.edit(order, lineNo: 1, received: "41", discrepancy: .excess, note: nil, now: 4)
            counted = try store.count(DemoData.materialCode, source: "dock", order: order, now: 5)
            #expect(counted.total == 42 && !counted.needsExcessFlag)
        }
    }

    /// The confirmation ends the receipt in the transaction that queues its GRN: once, and never
    /// with a revision the screen did not see.
    @Test func aReceiptIsConfirmedOnceAndNeverUnseen() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try await openOrder(fixture)
            let store = fixture.dock.receipts
            _ = try store.count(DemoData.materialCode, source: "dock", order: order, now: 1)
            let seen = try store.edit(order, lineNo: 1, received: "3", discrepancy: nil, note: nil, now: 2)
            _ = try store.count(DemoData.materialCode, source: "other-screen", order: order, now: 3)
            let draft = GRNDraft(poNumber: order.poNumber, lines: seen.grnLines)
            let stale = try await #require(throws: ReceivingError.self) {
                try await fixture.dock.confirm(draft, receiptRevision: seen.revision)
            }
            #expect(stale.code == .receiptChanged)
            #expect(try fixture.outbox.status().depth == 0, "nothing queued")

            let current = try #require(try store.receipt(order.poNumber))
            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: order.poNumber, lines: current.grnLines), receiptRevision: current.revision)
            #expect(confirmation.request.lines == [GRNLine(lineNo: 1, received: 4)])
            #expect(try store.receipt(order.poNumber) == nil)
            let again = try await #require(throws: ReceivingError.self) {
                try await fixture.dock.confirm(GRNDraft(poNumber: order.poNumber, lines: current.grnLines), receiptRevision: current.revision)
            }
            #expect(again.code == .receiptChanged && again.message.contains("already confirmed"))
            #expect(try fixture.outbox.status().depth == 1, "one GRN queued")
        }
    }

    /// A receipt's photos are on disk from the moment they are taken, named by the receipt;
    /// the GRN records them for upload; a discard removes the files nothing else names.
    @Test func receiptPhotosAreKeptAttachedAndCleanedUp() async throws {
        try await withStopping(DockFixture()) { fixture in
            let order = try await openOrder(fixture)
            let dock = fixture.dock
            let first = try dock.photos.write(GrayImage(width: 64, height: 48, fill: 40))
            let second = try dock.photos.write(GrayImage(width: 64, height: 48, fill: 200))
            var receipt = try dock.receipts.addPhoto(order.poNumber, first, now: 1)
            receipt = try dock.receipts.addPhoto(order.poNumber, second, replacing: first.sha256, now: 2)
            #expect(receipt.photos.map(\.sha256) == [second.sha256], "a retake replaces")
            #expect(FileManager.default.fileExists(atPath: dock.photos.path(first.sha256)), "the replaced file stays until discard or purge")
            receipt = try dock.receipts.addPhoto(order.poNumber, first, now: 3)
            #expect(Set(receipt.photos.map(\.sha256)) == [first.sha256, second.sha256])
            receipt = try dock.receipts.removePhoto(order.poNumber, sha256: first.sha256, now: 4)
            #expect(receipt.photos.map(\.sha256) == [second.sha256])

            // Discarded: the receipt's photo file goes with it.
            #expect(try dock.discardReceipt(order.poNumber))
            #expect(!FileManager.default.fileExists(atPath: dock.photos.path(second.sha256)))

            // Confirmed: the receipt's photo is recorded for upload with the GRN, and kept.
            let third = try dock.photos.write(GrayImage(width: 64, height: 48, fill: 90))
            receipt = try dock.receipts.addPhoto(order.poNumber, third, now: 5)
            receipt = try dock.receipts.edit(order, lineNo: 1, received: "2", discrepancy: nil, note: nil, now: 6)
            let confirmation = try await dock.confirm(GRNDraft(poNumber: order.poNumber, lines: receipt.grnLines), stored: receipt.photos,
                                                      receiptRevision: receipt.revision)
            #expect(confirmation.request.photos.map(\.sha256) == [third.sha256])
            #expect(try dock.photos.photo(third.sha256) != nil)
            #expect(try dock.receipts.unreferenced([third.sha256]).isEmpty)
        }
    }

    /// The migration a station database carries (every opener's list).
    @Test func theReceiptTablesComeWithEveryStationDatabase() async throws {
        try await withStopping(DockFixture()) { fixture in
            let tables = try await fixture.outbox.database.dbWriter.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'receiving_receipt%' ORDER BY name")
            }
            #expect(tables == ["receiving_receipt_counts", "receiving_receipt_lines", "receiving_receipt_photos", "receiving_receipts"])
        }
    }
}
