import EdgeCrypto
import XCTest

/// Bytes from a hex string as printed in the RFC / NIST documents (whitespace ignored).
func hex(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }.utf8.map { byte -> UInt8 in
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: 0xFF
        }
    }
    guard digits.count % 2 == 0, !digits.contains(0xFF) else {
        XCTFail("bad hex literal", file: file, line: line)
        return []
    }
    return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
}

func array(_ bytes: SecureBytes) -> [UInt8] {
    bytes.withUnsafeBytes { Array($0) }
}

/// Asserts `body` throws a CryptoError with `code`.
func assertThrows<T>(_ code: CryptoErrorCode, _ body: () throws(CryptoError) -> T,
                     file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected \(code), got a result", file: file, line: line)
    } catch {
        XCTAssertEqual(error.code, code, error.message, file: file, line: line)
    }
}
