import EdgeCore
import XCTest

final class BackoffPolicyTests: XCTestCase {
    func testCeilingDoublesFromOneSecondToTheCap() {
        let policy = BackoffPolicy.standard
        XCTAssertEqual((0...7).map { policy.ceiling(failures: $0) }, [1, 2, 4, 8, 16, 32, 60, 60])
        XCTAssertEqual(policy.ceiling(failures: 10_000), 60)
        XCTAssertEqual(policy.ceiling(failures: -3), 1)
    }

    func testFullJitterSpansZeroToTheCeiling() {
        let policy = BackoffPolicy.standard
        XCTAssertEqual(policy.delay(failures: 3, unit: 0), 0)
        XCTAssertEqual(policy.delay(failures: 3, unit: 0.5), 4)
        XCTAssertEqual(policy.delay(failures: 3, unit: 2), 8)
        let draws = (0..<1000).map { _ in policy.delay(failures: 4, unit: Double.random(in: 0..<1)) }
        XCTAssertTrue(draws.allSatisfy { $0 >= 0 && $0 < 16 })
        // Spread over the whole range, not clustered at the ceiling.
        XCTAssertLessThan(draws.min() ?? 16, 4)
        XCTAssertGreaterThan(draws.max() ?? 0, 12)
    }
}
