import EdgeStore
import Foundation
import GRDB
import XCTest

private struct LocalChangeFailed: Error {}

final class OutboxEnqueueTests: XCTestCase {
    private func makeOutbox(limits: OutboxLimits = .standard) throws -> (EdgeDatabase, Outbox) {
        let database = try EdgeDatabase(path: try makeDatabasePath(self))
        try database.dbWriter.write { db in try db.execute(sql: "CREATE TABLE scans (code TEXT NOT NULL)") }
        return (database, Outbox(database: database, limits: limits))
    }

    func testEnqueueIsAtomicWithTheCallersChange() throws {
        let (database, outbox) = try makeOutbox()
        XCTAssertThrowsError(try database.dbWriter.write { db in
            try db.execute(sql: "INSERT INTO scans (code) VALUES ('A')")
            _ = try outbox.enqueue(db, stream: "po/1", kind: "scan", payload: json("{\"code\":\"A\"}"))
            throw LocalChangeFailed()
        })
        let scans = try database.dbWriter.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM scans") }
        XCTAssertEqual(scans, 0)
        XCTAssertEqual(try outbox.pendingEntries().count, 0)

        let entry = try database.dbWriter.write { db in
            try db.execute(sql: "INSERT INTO scans (code) VALUES ('B')")
            return try outbox.enqueue(db, stream: "po/1", kind: "scan", payload: json("{\"code\":\"B\"}"))
        }
        XCTAssertEqual(try outbox.pendingEntries(), [entry])
        XCTAssertEqual(entry.payload, json("{\"code\":\"B\"}"))
        XCTAssertEqual(entry.attempts, 0)
    }

    func testSequencesStrictlyIncreaseAndAreNeverReused() throws {
        let path = try makeDatabasePath(self)
        var seen: [Int64] = []
        do {
            let database = try EdgeDatabase(path: path)
            let outbox = Outbox(database: database)
            for _ in 0..<5 {
                seen.append(try database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("1")) }.sequence)
            }
            // Delete every entry: the counter must not fall back.
            for entry in try outbox.lease(owner: "o", now: .greatestFiniteMagnitude / 2, leaseSeconds: 1, limit: 10) {
                try outbox.complete(id: entry.id, owner: "o")
            }
            try database.dbWriter.write { db in try db.execute(sql: "DELETE FROM outbox") }
            seen.append(try database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("2")) }.sequence)
            try database.dbWriter.write { db in try db.execute(sql: "DELETE FROM outbox") }
            try database.close()
        }
        let reopened = Outbox(database: try EdgeDatabase(path: path))
        seen.append(try reopened.database.dbWriter.write { db in try reopened.enqueue(db, stream: "s", kind: "k", payload: json("3")) }.sequence)
        XCTAssertEqual(seen, [1, 2, 3, 4, 5, 6, 7])
    }

    func testIdempotencyKeysAreUniqueV4AndTimestampsCarryAnOffset() throws {
        let (database, outbox) = try makeOutbox()
        let entries = try database.dbWriter.write { db in
            try (0..<200).map { _ in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("{}")) }
        }
        XCTAssertEqual(Set(entries.map(\.idempotencyKey)).count, 200)
        let uuid = try NSRegularExpression(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        let stamp = try NSRegularExpression(pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}[+-]\\d{2}:\\d{2}$")
        for entry in entries {
            let key = entry.idempotencyKey
            XCTAssertNotNil(uuid.firstMatch(in: key, range: NSRange(key.startIndex..., in: key)), key)
            let created = entry.createdAt
            XCTAssertNotNil(stamp.firstMatch(in: created, range: NSRange(created.startIndex..., in: created)), created)
        }
    }

    func testCreatedAtIsTheGivenInstant() throws {
        let (database, outbox) = try makeOutbox()
        let entry = try database.dbWriter.write { db in try outbox.enqueue(db, stream: "s", kind: "k", payload: json("{}"), now: 1_700_000_000.25) }
        // SQLite applies the offset, so the local string maps back to the same UTC instant.
        let back = try database.dbWriter.read { db in
            try Double.fetchOne(db, sql: "SELECT (julianday(?) - 2440587.5) * 86400.0", arguments: [entry.createdAt])
        }
        XCTAssertEqual(back ?? 0, 1_700_000_000.25, accuracy: 0.002)
    }

    func testPayloadAndNameValidation() throws {
        let (database, outbox) = try makeOutbox()
        func enqueue(stream: String = "s", kind: String = "k", _ payload: [UInt8]) throws {
            _ = try database.dbWriter.write { db in try outbox.enqueue(db, stream: stream, kind: kind, payload: payload) }
        }
        assertStoreError(.invalidPayload) { try enqueue(json("{not json")) }
        assertStoreError(.invalidPayload) { try enqueue(json("")) }
        assertStoreError(.invalidPayload) { try enqueue([0xFF, 0xFE]) }
        let big = json("\"" + String(repeating: "a", count: Outbox.maxPayloadBytes) + "\"")
        let tooLarge = assertStoreError(.payloadTooLarge) { try enqueue(big) }
        XCTAssertEqual(tooLarge?.context["maxBytes"], String(Outbox.maxPayloadBytes))
        assertStoreError(.invalidName) { try enqueue(stream: "", json("{}")) }
        assertStoreError(.invalidName) { try enqueue(stream: String(repeating: "s", count: 201), json("{}")) }
        assertStoreError(.invalidName) { try enqueue(stream: "po\n1", json("{}")) }
        assertStoreError(.invalidName) { try enqueue(stream: "po\u{7F}", json("{}")) }
        assertStoreError(.invalidName) { try enqueue(kind: "", json("{}")) }
        assertStoreError(.invalidName) { try enqueue(kind: "a\u{0}b", json("{}")) }
        XCTAssertEqual(try outbox.pendingEntries().count, 0)

        // Accepted: every JSON value type, a 200-byte name, non-ASCII names, exactly the size limit.
        for text in ["{}", "[]", "null", "true", "-1.5e3", "\"x\"", "{\"a\":[1,{\"b\":null}]}"] {
            try enqueue(json(text))
        }
        try enqueue(stream: String(repeating: "s", count: 200), json("{}"))
        try enqueue(stream: "Bestellung/Größe", json("{}"))
        try enqueue(json("\"" + String(repeating: "a", count: Outbox.maxPayloadBytes - 2) + "\""))
        XCTAssertEqual(try outbox.pendingEntries().count, 10)
    }

    func testConcurrentEnqueuesGetDistinctSequences() async throws {
        let (database, outbox) = try makeOutbox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for index in 0..<250 {
                        _ = try await database.dbWriter.write { db in
                            try outbox.enqueue(db, stream: "task-\(task)", kind: "k", payload: Array("{\"i\":\(index)}".utf8))
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let entries = try outbox.pendingEntries()
        XCTAssertEqual(entries.count, 1000)
        XCTAssertEqual(Set(entries.map(\.sequence)).count, 1000)
        XCTAssertEqual(Set(entries.map(\.idempotencyKey)).count, 1000)
        XCTAssertEqual(entries.map(\.sequence).min(), 1)
        XCTAssertEqual(entries.map(\.sequence).max(), 1000)
        // Within each task's stream, sequence order is enqueue order.
        for task in 0..<4 {
            let payloads = entries.filter { $0.stream == "task-\(task)" }.map { String(decoding: $0.payload, as: UTF8.self) }
            XCTAssertEqual(payloads, (0..<250).map { "{\"i\":\($0)}" })
        }
    }
}
