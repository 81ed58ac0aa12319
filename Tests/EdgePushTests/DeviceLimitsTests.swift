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
        var perMinute: [Int] = []
        // 240 offered every minute: the minute bucket allows them all, until the hour bucket
        // (5000, refilled at 5000/3600 a second) runs dry after about 32 minutes.
        for minute in 0..<40 {
            perMinute.append((0..<240).filter { _ in map.allow("a", now: Double(minute) * 60) }.count)
        }
        #expect(perMinute.prefix(30).allSatisfy { $0 == 240 })
        #expect(perMinute.suffix(5).allSatisfy { $0 < 90 }, "\(perMinute)")
        let total = perMinute.reduce(0, +)
        #expect(total <= 5000 + Int(39 * 60 * 5000.0 / 3600) + 1)
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
