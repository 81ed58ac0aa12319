import EdgeAgent
import EdgeContract
import EdgeImaging
import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import Foundation
import Testing

/// RCV-2 and RCV-3 over real HTTP to the stand-in with injected faults: a GRN goes through the
/// outbox and is applied once, online or offline, its photo is uploaded once by hash, and a lost
/// race with the server ends in the conflict log with what changed, line by line.
@Suite(.serialized) struct ConfirmationTests {
    /// A 640x480 "photo": a dark box on a light background, some texture.
    static func photo() -> GrayImage {
        var image = GrayImage(width: 640, height: 480, fill: 220)
        for y in 0..<480 { for x in 0..<640 where (x / 40 + y / 40) % 2 == 0 { image[x, y] = 200 } }
        for y in 150..<330 { for x in 200..<440 { image[x, y] = 30 } }
        return image
    }

    static func deliver(_ fixture: DockFixture, _ confirmation: GRNConfirmation) async throws -> GRNDelivery.Result {
        try await GRNDelivery.deliver(confirmation, parts: fixture.parts, sync: fixture.configuration.sync, router: ChangeRouter(), kinds: StationSchema.outboxKinds, wait: 0)
    }

    /// Sends what is due (manual: backoffs lifted) until the confirmation is settled.
    static func settle(_ fixture: DockFixture, _ key: String) async throws -> GRNOutcome {
        let sender = try fixture.sender(ChangeRouterHarness.router(fixture.dock))
        var outcome = try fixture.dock.outcome(key)
        try await eventually("confirmation \(key) settled") {
            _ = await sender.drain(manual: true)
            outcome = try fixture.dock.outcome(key)
            if case .queued = outcome { return false }
            return true
        }
        return outcome
    }

    @Test func anOnlineConfirmationWithAPhotoIsAppliedOnceAcrossDroppedConnections() async throws {
        try await withStopping(DockFixture()) { fixture in
            // Both the photo upload and the GRN are applied by the server, then the connection drops
            // before the answer: the station cannot know, and must retry without applying twice.
            fixture.standin.faults.add(.drop, pathPrefix: APIPath.grnPhotos, times: 1)
            fixture.standin.faults.add(.drop, pathPrefix: APIPath.grnConfirm, times: 1)
            let draft = GRNDraft(poNumber: DemoData.openOrder, lines: [
                try GRNDraft.parseLine("1=120"), try GRNDraft.parseLine("2=48:short:two pens missing"), try GRNDraft.parseLine("3=250.5")])
            let confirmation = try await fixture.dock.confirm(draft, photos: [Self.photo()])
            #expect(!confirmation.offline)
            #expect(confirmation.suggestions.isEmpty)
            let photo = try #require(confirmation.photos.first)
            #expect(confirmation.request.photos == [GRNPhoto(sha256: photo.sha256)])

            // Whether the station or libcurl (which resends once on a reused connection that closed
            // without an answer) sends again, the server sees each request twice and applies it once.
            _ = try await Self.deliver(fixture, confirmation)
            #expect(try await Self.settle(fixture, confirmation.idempotencyKey) == .applied)
            let uploader = PhotoUploader(store: fixture.dock.photos, client: try #require(fixture.dock.client))
            try await eventually("the photo acknowledged") {
                _ = await uploader.uploadDue(now: fixture.dock.now + 3600)
                return try fixture.dock.photos.photo(photo.sha256)?.uploadedAt != nil
            }

            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 1)
            #expect(fixture.requests(APIPath.grnConfirm) == 2 && fixture.requests(APIPath.grnPhotos) == 2)
            let received = try #require(fixture.standin.backend.photoShelf.photo(photo.sha256))
            #expect(received.stored == 1 && received.duplicates == 1)
            let decoded = try ImageLoader.load(data: received.bytes, name: "evidence.jpg")
            #expect(decoded.width == 640 && decoded.height == 480 && decoded[320, 240] < 60)
            let order = try #require(fixture.standin.backend.purchaseOrder(DemoData.openOrder))
            #expect(order.lines.map(\.received) == [120, 48, 250.5])

            let document = ConfirmationDocument(confirmation, outcome: .applied, photos: [try #require(try fixture.dock.photos.photo(photo.sha256))])
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/receive-confirmation.schema.json"))

            // Applied and uploaded: with a zero retention the next purge removes the file and row.
            let purged = try fixture.dock.photos.purge(now: fixture.dock.now + 1, retention: 0)
            #expect(purged == [photo.sha256])
            #expect(!FileManager.default.fileExists(atPath: fixture.dock.photos.path(photo.sha256)))
        }
    }

    @Test func anOfflineConfirmationOfACachedOrderIsAppliedOnceAfterReconnecting() async throws {
        try await withStopping(DockFixture()) { fixture in
            _ = try await fixture.dock.lookupOrder(DemoData.openOrder)
            fixture.standin.faults.add(.refuse, pathPrefix: "/api/")

            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: [try GRNDraft.parseLine("1=120")]),
                                                              photos: [Self.photo()])
            #expect(confirmation.offline)
            let first = try await Self.deliver(fixture, confirmation)
            guard case .queued(let reason) = first.outcome else { Issue.record("expected queued, got \(first.outcome)"); return }
            let queued = ConfirmationDocument(confirmation, outcome: first.outcome, photos: confirmation.photos)
            #expect(queued.offline && queued.reason == reason)
            try PythonCheck.validate(json: try fixture.json(queued), schema: PackageFiles.path("models/receive-confirmation.schema.json"))

            // An order this station never fetched cannot be confirmed offline; nothing is queued.
            let depth = try fixture.outbox.status().depth
            let never = await #expect(throws: ReceivingError.self) {
                try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.partialOrder, lines: [GRNLine(lineNo: 1, received: 10)]))
            }
            #expect(never?.code == .notAvailableOffline)
            #expect(try fixture.outbox.status().depth == depth)
            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 0)

            // A photo stays while its GRN waits, however old.
            #expect(try fixture.dock.photos.purge(now: fixture.dock.now + 30 * 86400, retention: 0).isEmpty)
            #expect(FileManager.default.fileExists(atPath: fixture.dock.photos.path(try #require(confirmation.photos.first).sha256)))

            fixture.standin.faults.clear()
            #expect(try await Self.settle(fixture, confirmation.idempotencyKey) == .applied)
            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 1)
            #expect(fixture.standin.backend.purchaseOrder(DemoData.openOrder)?.lines[0].received == 120)
            #expect(try fixture.outbox.status().depth == 0)
            let grnRequests = fixture.requests(APIPath.grnConfirm)
            _ = await (try fixture.sender(ChangeRouter())).drain(manual: true)
            #expect(fixture.requests(APIPath.grnConfirm) == grnRequests, "nothing is sent twice")
        }
    }

    @Test func whenTheServerReceivedTheOrderMeanwhileItsVersionWinsAndTheOperatorSeesWhatChanged() async throws {
        try await withStopping(DockFixture()) { fixture in
            _ = try await fixture.dock.lookupOrder(DemoData.partialOrder)   // 20 of 60 EA received
            fixture.standin.faults.add(.refuse, pathPrefix: "/api/")
            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.partialOrder, lines: [GRNLine(lineNo: 1, received: 40)]))
            #expect(confirmation.offline)
            try fixture.otherStationReceives(GRNConfirmRequest(poNumber: DemoData.partialOrder, confirmedAt: "2026-11-20T09:00:00.000+01:00",
                                                               lines: [GRNLine(lineNo: 1, received: 40)]))
            fixture.standin.faults.clear()

            let outcome = try await Self.settle(fixture, confirmation.idempotencyKey)
            guard case .conflict(let found) = outcome, let report = found else { Issue.record("expected a conflict report, got \(outcome)"); return }
            #expect(report.statusBefore == "PARTIALLY_RECEIVED" && report.statusOnServer == "RECEIVED")
            let line = try #require(report.lines.first)
            #expect(line.receivedBefore == 20 && line.receivedOnServer == 60 && line.confirmed == 40)
            #expect(line.text == "Line 1 (Steel bracket 40x40 mm): received went from 20 to 60 of 60 EA on the server; your 40 EA were not applied.")
            #expect(report.serverSummary?.contains("already received in full") == true)
            #expect(try fixture.outbox.conflicts().contains { $0.idempotencyKey == confirmation.idempotencyKey })
            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 0)
            let document = ConfirmationDocument(confirmation, outcome: outcome, photos: [])
            #expect(document.text.contains { $0.contains("your 40 EA were not applied") })
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/receive-confirmation.schema.json"))
        }
    }

    @Test func anOnlineConfirmationOfAReceivedOrderIsAConflictToo() async throws {
        try await withStopping(DockFixture()) { fixture in
            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.receivedOrder, lines: [GRNLine(lineNo: 1, received: 0)]))
            let result = try await Self.deliver(fixture, confirmation)
            guard case .conflict(let report) = result.outcome else { Issue.record("expected a conflict, got \(result.outcome)"); return }
            #expect(report?.lines.first?.text == "Line 1 (Pallet wrap film 500 mm): 12 of 12 roll received on the server, unchanged; your 0 roll were not applied.")
        }
    }

    @Test func aGRNTheBackendRefusesIsADeadLetterThatCanBeRequeued() async throws {
        try await withStopping(DockFixture()) { fixture in
            fixture.standin.faults.add(.status, pathPrefix: APIPath.grnConfirm, times: 1,
                                       parameters: FaultParameters(status: 422, code: "INVALID_REQUEST", message: "Line 1 is closed for receiving"))
            let confirmation = try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: [GRNLine(lineNo: 1, received: 10)]))
            let result = try await Self.deliver(fixture, confirmation)
            guard case .rejected(let reason) = result.outcome else { Issue.record("expected rejected, got \(result.outcome)"); return }
            #expect(reason.contains("Line 1 is closed for receiving"))
            let document = ConfirmationDocument(confirmation, outcome: result.outcome, photos: [])
            try PythonCheck.validate(json: try fixture.json(document), schema: PackageFiles.path("models/receive-confirmation.schema.json"))

            // The operator re-queues it (`edge sync requeue`): it waits again, then is applied once.
            let dead = try #require(try fixture.outbox.deadLetters().first { $0.idempotencyKey == confirmation.idempotencyKey })
            try fixture.outbox.requeue(deadLetterID: dead.id)
            #expect(try fixture.dock.outcome(confirmation.idempotencyKey).name == "queued")
            #expect(try await Self.settle(fixture, confirmation.idempotencyKey) == .applied)
            #expect(fixture.standin.backend.applications(ofKey: confirmation.idempotencyKey) == 1)
        }
    }

    @Test func quantitiesThatBreakTheRulesQueueNothing() async throws {
        try await withStopping(DockFixture()) { (fixture: DockFixture) async throws in
            let error = await #expect(throws: ReceivingError.self) {
                try await fixture.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: [GRNLine(lineNo: 1, received: 121), GRNLine(lineNo: 2, received: -1)]),
                                               photos: [Self.photo()])
            }
            #expect(error?.code == .invalidQuantity)
            #expect(error?.message == "Line 1: 121 EA received but only 120 EA outstanding; flag the line as excess. Line 2: the received quantity must not be negative (-1 EA).")
            #expect(try fixture.outbox.status().depth == 0)
            #expect(fixture.requests(APIPath.grnConfirm) == 0)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: fixture.dock.photos.directory)) ?? []
            #expect(files.isEmpty, "a refused draft leaves no photo behind")
        }
    }
}
