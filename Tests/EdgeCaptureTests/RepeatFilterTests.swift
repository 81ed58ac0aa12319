import EdgeScanning
import XCTest

/// SCN-7: a code in consecutive frames is reported once; again after a gap out of view or a cooldown.
final class RepeatFilterTests: XCTestCase {
    private func code(_ text: String) -> ScanResult {
        ScanResult(format: .qr, text: text, bytes: Array(text.utf8), encoding: "ascii", points: [], orientation: .up,
                   quality: 1, pass: .plain, addOn: nil)
    }

    func testConsecutiveFramesReportOnceUntilOutOfViewForTheGap() {
        var filter = RepeatFilter(gap: .milliseconds(1500))
        let t0 = ContinuousClock.now
        XCTAssertTrue(filter.admit(code("A"), at: t0))
        for i in 1...100 { XCTAssertFalse(filter.admit(code("A"), at: t0 + .milliseconds(33 * i))) }
        XCTAssertTrue(filter.admit(code("B"), at: t0 + .milliseconds(3400)), "another code is reported at once")
        // Last seen at 3.3 s; back at 4.0 s is within the gap, at 5.0 s after it.
        XCTAssertFalse(filter.admit(code("A"), at: t0 + .milliseconds(4000)))
        XCTAssertTrue(filter.admit(code("A"), at: t0 + .milliseconds(5600)))
    }

    func testCooldownReportsAgainWhileInView() {
        var filter = RepeatFilter(gap: .milliseconds(1500), cooldown: .seconds(2))
        let t0 = ContinuousClock.now
        XCTAssertTrue(filter.admit(code("A"), at: t0))
        XCTAssertFalse(filter.admit(code("A"), at: t0 + .milliseconds(1000)))
        XCTAssertTrue(filter.admit(code("A"), at: t0 + .milliseconds(2100)))
    }
}
