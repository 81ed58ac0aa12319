import EdgeStore
import Foundation
import XCTest

/// A fresh directory under the system temp dir, removed by the test's teardown.
func makeTemporaryDirectory(_ testCase: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("edge-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// A database file path in a fresh temp directory.
func makeDatabasePath(_ testCase: XCTestCase) throws -> String {
    try makeTemporaryDirectory(testCase).appendingPathComponent("edge.sqlite").path
}

func json(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Asserts `body` throws a StoreError with `code`; returns it for further checks.
@discardableResult
func assertStoreError<T>(_ code: StoreErrorCode, _ body: () throws -> T,
                         file: StaticString = #filePath, line: UInt = #line) -> StoreError? {
    do {
        _ = try body()
        XCTFail("expected \(code), got a result", file: file, line: line)
    } catch let error as StoreError {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
        return error
    } catch {
        XCTFail("expected StoreError \(code), got \(error)", file: file, line: line)
    }
    return nil
}
