@testable import EdgePush
import XCTest

final class QuietHoursTests: XCTestCase {
    func testStartEqualToEndAndLongWindowsAreRefused() throws {
        assertPushError(.invalidQuietHours) { try quiet("22:00", "22:00") }
        assertPushError(.invalidQuietHours) { try quiet("22:00", "19:00") } // 21 h
        assertPushError(.invalidQuietHours) { try quiet("01:00", "21:01") } // 20 h 1 min
        XCTAssertNoThrow(try quiet("22:00", "18:00")) // exactly 20 h
        XCTAssertNoThrow(try quiet("12:00", "13:00"))
        assertPushError(.invalidArgument) { try TimeOfDay("24:00") }
        assertPushError(.invalidArgument) { try TimeOfDay("7:00") }
        XCTAssertEqual(QuietHours.standard, try quiet("22:00", "07:00"))
    }

    /// 21:59 open, 22:00 quiet until 07:00, 06:59 quiet, 07:00 open, on an ordinary June day.
    func testBoundariesInSeveralZones() throws {
        let hours = QuietHours.standard
        // June offsets (seconds east of UTC).
        let zones: [(String, Int64)] = [("Europe/Berlin", 7200), ("America/New_York", -14400), ("Asia/Kolkata", 19800),
                                        ("UTC", 0), ("Australia/Lord_Howe", 37800)]
        for (name, offset) in zones {
            let rules = try zone(name)
            func at(_ day: Int, _ hour: Int, _ minute: Int) -> Int64 { utc(2026, 6, day, hour, minute) - offset }
            XCTAssertEqual(hours.evaluate(at: at(15, 21, 59), in: rules), .open, name)
            XCTAssertEqual(hours.evaluate(at: at(15, 22, 0), in: rules), .quiet(until: at(16, 7, 0)), name)
            XCTAssertEqual(hours.evaluate(at: at(16, 0, 0), in: rules), .quiet(until: at(16, 7, 0)), name)
            XCTAssertEqual(hours.evaluate(at: at(16, 6, 59), in: rules), .quiet(until: at(16, 7, 0)), name)
            XCTAssertEqual(hours.evaluate(at: at(16, 7, 0), in: rules), .open, name)
            XCTAssertEqual(hours.evaluate(at: at(16, 12, 0), in: rules), .open, name)
        }
    }

    func testWindowNotCrossingMidnight() throws {
        let hours = try quiet("12:00", "13:00")
        let berlin = try zone("Europe/Berlin")
        XCTAssertEqual(hours.evaluate(at: utc(2026, 6, 15, 9, 59), in: berlin), .open) // 11:59
        XCTAssertEqual(hours.evaluate(at: utc(2026, 6, 15, 10), in: berlin), .quiet(until: utc(2026, 6, 15, 11)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 6, 15, 10, 59), in: berlin), .quiet(until: utc(2026, 6, 15, 11)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 6, 15, 11), in: berlin), .open) // 13:00
        XCTAssertEqual(hours.evaluate(at: utc(2026, 6, 15, 21), in: berlin), .open) // 23:00
    }

    /// 22:00-07:00 follows the wall clock: 8 h on the spring night, 10 h on the autumn night.
    func testBerlinDSTNights() throws {
        let hours = QuietHours.standard
        let berlin = try zone("Europe/Berlin")
        // Spring: 22:00 CET = 21:00Z, 07:00 CEST = 05:00Z.
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 28, 20, 59), in: berlin), .open)
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 28, 21), in: berlin), .quiet(until: utc(2026, 3, 29, 5)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 29, 1), in: berlin), .quiet(until: utc(2026, 3, 29, 5)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 29, 4, 59), in: berlin), .quiet(until: utc(2026, 3, 29, 5)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 29, 5), in: berlin), .open)
        // Autumn: 22:00 CEST = 20:00Z, 07:00 CET = 06:00Z; quiet through both 02:30s.
        XCTAssertEqual(hours.evaluate(at: utc(2026, 10, 24, 20), in: berlin), .quiet(until: utc(2026, 10, 25, 6)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 10, 25, 0, 30), in: berlin), .quiet(until: utc(2026, 10, 25, 6)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 10, 25, 1, 30), in: berlin), .quiet(until: utc(2026, 10, 25, 6)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 10, 25, 5, 59), in: berlin), .quiet(until: utc(2026, 10, 25, 6)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 10, 25, 6), in: berlin), .open)
    }

    func testNewYorkDSTNights() throws {
        let hours = QuietHours.standard
        let newYork = try zone("America/New_York")
        // Spring: 22:00 EST = 03:00Z, 07:00 EDT = 11:00Z.
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 8, 2, 59), in: newYork), .open)
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 8, 3), in: newYork), .quiet(until: utc(2026, 3, 8, 11)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 8, 10, 59), in: newYork), .quiet(until: utc(2026, 3, 8, 11)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 3, 8, 11), in: newYork), .open)
        // Autumn: 22:00 EDT = 02:00Z, 07:00 EST = 12:00Z.
        XCTAssertEqual(hours.evaluate(at: utc(2026, 11, 1, 2), in: newYork), .quiet(until: utc(2026, 11, 1, 12)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 11, 1, 6, 30), in: newYork), .quiet(until: utc(2026, 11, 1, 12)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 11, 1, 11, 59), in: newYork), .quiet(until: utc(2026, 11, 1, 12)))
        XCTAssertEqual(hours.evaluate(at: utc(2026, 11, 1, 12), in: newYork), .open)
    }

    /// The documented meaning of a start or end inside the gap or the overlap.
    func testEdgesInsideTheGapAndTheOverlap() throws {
        let berlin = try zone("Europe/Berlin")
        // End 02:30 on the spring day does not exist: the window ends when the clock jumps (01:00Z).
        let endsInGap = try quiet("01:00", "02:30")
        XCTAssertEqual(endsInGap.evaluate(at: utc(2026, 3, 29, 0, 30), in: berlin), .quiet(until: utc(2026, 3, 29, 1)))
        XCTAssertEqual(endsInGap.evaluate(at: utc(2026, 3, 29, 1), in: berlin), .open)
        // Start 02:30 on the spring day: the window starts at the jump, 03:00 CEST.
        let startsInGap = try quiet("02:30", "06:00")
        XCTAssertEqual(startsInGap.evaluate(at: utc(2026, 3, 29, 0, 59), in: berlin), .open)
        XCTAssertEqual(startsInGap.evaluate(at: utc(2026, 3, 29, 1), in: berlin), .quiet(until: utc(2026, 3, 29, 4)))
        // End 02:30 on the autumn day: the first 02:30 (CEST, 00:30Z); the second pass through
        // 02:00-02:30 (CET) does not reopen the window.
        let endsInOverlap = try quiet("01:00", "02:30")
        XCTAssertEqual(endsInOverlap.evaluate(at: utc(2026, 10, 24, 23), in: berlin), .quiet(until: utc(2026, 10, 25, 0, 30)))
        XCTAssertEqual(endsInOverlap.evaluate(at: utc(2026, 10, 25, 0, 30), in: berlin), .open)
        XCTAssertEqual(endsInOverlap.evaluate(at: utc(2026, 10, 25, 1, 15), in: berlin), .open)
        // Start 02:30 on the autumn day: the first 02:30, and quiet stays through the repeat.
        let startsInOverlap = try quiet("02:30", "06:00")
        XCTAssertEqual(startsInOverlap.evaluate(at: utc(2026, 10, 25, 0, 29), in: berlin), .open)
        XCTAssertEqual(startsInOverlap.evaluate(at: utc(2026, 10, 25, 0, 30), in: berlin), .quiet(until: utc(2026, 10, 25, 5)))
        XCTAssertEqual(startsInOverlap.evaluate(at: utc(2026, 10, 25, 1, 15), in: berlin), .quiet(until: utc(2026, 10, 25, 5)))
    }

    func testLordHoweHalfHourShiftNight() throws {
        let lordHowe = try zone("Australia/Lord_Howe")
        // 2026-10-03 22:00 +10:30 = 11:30Z; 2026-10-04 07:00 +11 = 20:00Z (8 h 30 min).
        XCTAssertEqual(QuietHours.standard.evaluate(at: utc(2026, 10, 3, 11, 30), in: lordHowe), .quiet(until: utc(2026, 10, 3, 20)))
        XCTAssertEqual(QuietHours.standard.evaluate(at: utc(2026, 10, 3, 20), in: lordHowe), .open)
    }

    func testUserWithoutZoneUsesStationZone() throws {
        let preferences = try PushPreferences(userID: "u1")
        // 23:00 in New York (June, -4) = 03:00Z; 03:00Z in Berlin is 05:00, also quiet; 12:00Z is
        // 08:00 in New York (open) and 14:00 in Berlin.
        XCTAssertEqual(try QuietHours.evaluate(at: utc(2026, 6, 16, 3), preferences, stationZone: "America/New_York"),
                       .quiet(until: utc(2026, 6, 16, 11)))
        XCTAssertEqual(try QuietHours.evaluate(at: utc(2026, 6, 16, 3), preferences, stationZone: "Europe/Berlin"),
                       .quiet(until: utc(2026, 6, 16, 5)))
        let tokyo = try PushPreferences(userID: "u2", timeZone: "Asia/Tokyo")
        XCTAssertEqual(try QuietHours.evaluate(at: utc(2026, 6, 16, 3), tokyo, stationZone: "Europe/Berlin"), .open) // 12:00 JST
    }
}
