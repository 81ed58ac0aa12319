@testable import EdgePush
import Testing

/// PSH-10 with a test clock: 240 a minute and 5000 an hour per device, and a bounded map.
@Suite struct DeviceLimitsTests {
    @Test func twoHundredFortyAMinuteThenRefilled() {
        var map = DeviceLimiterMap()
        let allowed = (0..<300).filter { _ in map.allow("a", now: 0) }.count
        #expect(allowed == 240)
        let tooSoon = map.allow("a", now: 0.1)
        let refilled = map.allow("a", now: 0.25 + 0.1)  // 4 a second come back
        let other = map.allow("b", now: 0.4)
        #expect(!tooSoon)
        #expect(refilled)
        #expect(other, "another device has its own buckets")
    }

    @Test func fiveThousandAnHourAcrossMinutes() {
        var map = DeviceLimiterMap()
        var sent = 0
        // 240 every minute for 25 minutes would be 6000: the hour bucket stops it at 5000.
        for minute in 0..<25 {
            for _ in 0..<240 where map.allow("a", now: Double(minute) * 60) { sent += 1 }
        }
        #expect(sent == 5000)
    }

    @Test func idleDevicesAreDroppedSoTheMapStaysBounded() {
        var map = DeviceLimiterMap()
        for index in 0..<5000 { _ = map.allow("token-\(index)", now: 0) }
        #expect(map.count == 5000)
        // An hour later every one of them is full again; the next prune drops them all.
        for index in 0..<DeviceLimiterMap.pruneEvery { _ = map.allow("late-\(index % 3)", now: 3600 + Double(index) * 0.001) }
        #expect(map.count <= 3 + DeviceLimiterMap.pruneEvery)
        #expect(map.count < 100)
    }
}
