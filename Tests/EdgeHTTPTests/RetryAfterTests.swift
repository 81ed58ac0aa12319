import EdgeHTTP
import XCTest

final class RetryAfterTests: XCTestCase {
    func testDeltaSeconds() {
        XCTAssertEqual(RetryAfter.seconds("120", now: 0), 120)
        XCTAssertEqual(RetryAfter.seconds(" 0 ", now: 0), 0)
        XCTAssertEqual(RetryAfter.seconds("999999", now: 0), RetryAfter.maximumWait)
    }

    func testHTTPDate() {
        // 784111777 = Sun, 06 Nov 1994 08:49:37 GMT (RFC 7231's example).
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 30), 30)
        // A date in the past means now.
        XCTAssertEqual(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 30), 0)
    }

    func testGarbageIsIgnored() {
        for value in ["", "-5", "1.5", "soon", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                      "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
                      "99999999999999999999"] {
            XCTAssertNil(RetryAfter.seconds(value, now: 0), value)
        }
    }
}
