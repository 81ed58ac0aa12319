@testable import EdgePush
import EdgeStore
import Foundation
import XCTest

/// A database file path in a fresh temp directory, removed by the test's teardown.
func makeDatabasePath(_ testCase: XCTestCase) throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("edge-push-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url.appendingPathComponent("edge.sqlite").path
}

/// Unix seconds of a UTC wall-clock time.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    LocalDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).secondsSinceEpoch
}

func zone(_ name: String) throws -> TimeZoneRules {
    try TimeZoneDatabase.system.rules(for: name)
}

func quiet(_ start: String, _ end: String) throws -> QuietHours {
    try QuietHours(start: TimeOfDay(start), end: TimeOfDay(end))
}

/// Asserts `body` throws a PushError with `code`.
func assertPushError<T>(_ code: PushErrorCode, _ body: () throws -> T, file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(code), got a result", file: file, line: line)
    } catch let error as PushError {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
    } catch {
        XCTFail("expected PushError \(code), got \(error)", file: file, line: line)
    }
}

