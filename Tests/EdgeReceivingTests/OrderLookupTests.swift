import EdgeContract
import EdgeReceiving
import EdgeStandin
import EdgeTestSupport
import Foundation
import Testing

/// RCV-1 over real HTTP to the stand-in: online, offline from the cache with its age, and an
/// order never seen answered "not available offline".
@Suite(.serialized) struct OrderLookupTests {
    @Test func onlineThenOfflineFromTheCacheThenNeverSeen() async throws {
        try await withStopping(DockFixture()) { fixture in

            let online = try await fixture.dock.lookupOrder(" \(DemoData.openOrder) ")
            guard case .online(let order, _) = online else { Issue.record("expected online, got \(online)"); return }
            #expect(order.lines.count == 3 && order.lines[2].unit == "m" && order.lines[2].ordered == 250.5)
            let onlineDocument = OrderDocument(online, now: fixture.dock.now)
            try PythonCheck.validate(json: try fixture.json(onlineDocument), schema: PackageFiles.path("models/receive-order.schema.json"))
            #expect(onlineDocument.ageSeconds == nil && onlineDocument.lines?.first?.outstanding == 120)

            // The backend goes away: every barcode lookup's connection is refused.
            fixture.standin.faults.add(.refuse, pathPrefix: APIPath.scanBarcode)
            let cached = try await fixture.dock.lookupOrder(DemoData.openOrder)
            guard case .cached(let copy, let reason) = cached else { Issue.record("expected the cached copy, got \(cached)"); return }
            #expect(copy.order == order)
            #expect(copy.age(now: fixture.dock.now) >= 0)
            #expect(reason.contains("could not be reached"))
            let cachedDocument = OrderDocument(cached, now: fixture.dock.now)
            #expect(cachedDocument.source == "cache" && cachedDocument.ageSeconds != nil)
            #expect(cachedDocument.text.contains { $0.hasPrefix("CACHED copy, fetched") })
            try PythonCheck.validate(json: try fixture.json(cachedDocument), schema: PackageFiles.path("models/receive-order.schema.json"))

            let never = try await fixture.dock.lookupOrder(DemoData.partialOrder)
            guard case .notAvailableOffline(let number, _) = never else { Issue.record("expected not available offline, got \(never)"); return }
            #expect(number == DemoData.partialOrder)
            let neverDocument = OrderDocument(never, now: fixture.dock.now)
            #expect(!neverDocument.available && neverDocument.text[0].contains("not available offline"))
            try PythonCheck.validate(json: try fixture.json(neverDocument), schema: PackageFiles.path("models/receive-order.schema.json"))
        }
    }

    @Test func anUnknownOrderAndABadNumberAreTypedErrors() async throws {
        try await withStopping(DockFixture()) { fixture in
            let unknown = await #expect(throws: ReceivingError.self) { try await fixture.dock.lookupOrder("PO-2026-99999") }
            #expect(unknown?.code == .notFound)
            let before = fixture.requests(APIPath.scanBarcode)
            let bad = await #expect(throws: ReceivingError.self) { try await fixture.dock.lookupOrder("PO-26-42") }
            #expect(bad?.code == .invalidInput)
            #expect(fixture.requests(APIPath.scanBarcode) == before, "a malformed number is refused before any request")
        }
    }

    @Test func aPulledOrderChangeRefreshesTheCache() async throws {
        try await withStopping(DockFixture()) { fixture in
            _ = try await fixture.dock.lookupOrder(DemoData.openOrder)
            let router = ChangeRouterHarness.router(fixture.dock)
            try fixture.otherStationReceives(GRNConfirmRequest(poNumber: DemoData.openOrder, confirmedAt: "2026-11-20T09:00:00.000+01:00",
                                                               lines: [GRNLine(lineNo: 1, received: 100, discrepancy: nil)]))
            let report = try await ChangeRouterHarness.pull(fixture, router: router)
            #expect(report.changes >= 1)
            let cached = try #require(try fixture.dock.cache.cached(DemoData.openOrder))
            #expect(cached.order.lines[0].received == 100)
            #expect(cached.order.status == .partiallyReceived)
        }
    }
}
