import EdgeContract
import EdgeStandin
import EdgeStore
import EdgeSync
import Foundation
import GRDB
import XCTest

/// SYN-9 against the stand-in: opaque cursor, each page applied with its cursor in one
/// transaction, the exchange time recorded.
final class SyncPullerTests: XCTestCase {
    func testPagesAreAppliedWithTheirCursorAndNothingTwice() async throws {
        let h = try await SenderHarness(self)
        for index in 0..<5 {
            _ = h.standin.backend.appendChange(stream: "notifications", kind: "push.notification", payload: .object(["n": .integer(Int64(index))]))
        }
        let puller = SyncPuller(outbox: h.outbox, transport: h.transport, tokens: SenderHarness.StaticTokens(tokens: ["station": SenderHarness.token]),
                                baseURL: h.baseURL, identity: h.identity)
        let state = h.state
        let store: @Sendable (Database, [SyncChange]) throws -> Void = { db, changes in
            for change in changes {
                try state.storePulledChange(db, id: change.id, stream: change.stream, kind: change.kind,
                                            payload: try ContractCoding.encode(change.payload), changedAt: change.changedAt, now: 0)
            }
        }
        let first = try await puller.pull(pageSize: 2, apply: store)
        XCTAssertEqual(first.pages, 3)
        XCTAssertEqual(first.changes, 5)
        XCTAssertEqual(try state.pulledChangeCount(), 5)
        XCTAssertEqual(try state.cursor(stream: SyncPuller.cursorStream), first.cursor)
        XCTAssertNotNil(try h.outbox.status().lastPull)

        // Nothing new: one page, no changes, same cursor semantics.
        let again = try await puller.pull(pageSize: 2, apply: store)
        XCTAssertEqual(again.changes, 0)

        // A failing apply rolls the page back, cursor included; the next pull gets it again.
        _ = h.standin.backend.appendChange(stream: "notifications", kind: "push.notification", payload: .object(["n": .integer(5)]))
        let before = try state.cursor(stream: SyncPuller.cursorStream)
        struct Refused: Error {}
        do {
            _ = try await puller.pull(pageSize: 2) { _, changes in if !changes.isEmpty { throw Refused() } }
            XCTFail("the apply error must surface")
        } catch {
            XCTAssertEqual(error.code, .storeFailure)
        }
        XCTAssertEqual(try state.cursor(stream: SyncPuller.cursorStream), before)
        let retried = try await puller.pull(pageSize: 2, apply: store)
        XCTAssertEqual(retried.changes, 1)
        XCTAssertEqual(try state.pulledChangeCount(), 6)
        // The cursor went to the server as it was given, never built from the local clock.
        let queries = h.standin.requests.filter { $0.path == APIPath.syncPull }.compactMap(\.query)
        XCTAssertGreaterThan(queries.count, 2, "the pulls above, with their queries: fewer and allSatisfy checks nothing")
        XCTAssertTrue(queries.dropFirst().allSatisfy { $0.contains("cursor=") }, "\(queries)")
    }

    func testRefusedPullIsAnErrorNotAnEmptyPage() async throws {
        let h = try await SenderHarness(self)
        let puller = SyncPuller(outbox: h.outbox, transport: h.transport, tokens: SenderHarness.StaticTokens(tokens: ["station": "unknown-token"]),
                                baseURL: h.baseURL, identity: h.identity)
        do {
            _ = try await puller.pull { _, _ in }
            XCTFail("401 must be reported")
        } catch {
            XCTAssertEqual(error.code, .serverRefused)
            XCTAssertEqual(error.context["status"], "401")
        }
        XCTAssertNil(try h.outbox.status().lastPull)
    }
}
