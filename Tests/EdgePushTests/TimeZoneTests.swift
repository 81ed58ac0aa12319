@testable import EdgePush
import Foundation
import XCTest

final class TimeZoneTests: XCTestCase {
    private func assertLocal(_ rules: TimeZoneRules, _ instant: Int64, _ expected: String, offset: Int32, dst: Bool,
                             file: StaticString = #filePath, line: UInt = #line) {
        let zoned = rules.zonedTime(at: instant)
        XCTAssertEqual(zoned.local.description, expected, file: file, line: line)
        XCTAssertEqual(zoned.utcOffset, offset, file: file, line: line)
        XCTAssertEqual(zoned.type.isDST, dst, file: file, line: line)
    }

    // Expected values from `zdump -v -c 2026,2027` on this machine (tzdata, Debian 12).
    func testBerlinTransitions2026() throws {
        let berlin = try zone("Europe/Berlin")
        assertLocal(berlin, utc(2026, 3, 29, 0, 59, 59), "2026-03-29T01:59:59", offset: 3600, dst: false)
        assertLocal(berlin, utc(2026, 3, 29, 1), "2026-03-29T03:00:00", offset: 7200, dst: true)
        assertLocal(berlin, utc(2026, 10, 25, 0, 59, 59), "2026-10-25T02:59:59", offset: 7200, dst: true)
        assertLocal(berlin, utc(2026, 10, 25, 1), "2026-10-25T02:00:00", offset: 3600, dst: false)
        XCTAssertEqual(berlin.zonedTime(at: utc(2026, 10, 25, 1)).type.abbreviation, "CET")

        // Local → UTC: none in the gap, two in the overlap, one otherwise.
        XCTAssertEqual(berlin.instants(for: LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)), [])
        XCTAssertEqual(berlin.instants(for: LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30)),
                       [utc(2026, 10, 25, 0, 30), utc(2026, 10, 25, 1, 30)])
        XCTAssertEqual(berlin.instants(for: LocalDateTime(year: 2026, month: 7, day: 1, hour: 12)), [utc(2026, 7, 1, 10)])
        XCTAssertEqual(berlin.firstInstant(for: LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)), utc(2026, 3, 29, 1))
    }

    func testNewYorkTransitions2026() throws {
        let newYork = try zone("America/New_York")
        assertLocal(newYork, utc(2026, 3, 8, 6, 59, 59), "2026-03-08T01:59:59", offset: -18000, dst: false)
        assertLocal(newYork, utc(2026, 3, 8, 7), "2026-03-08T03:00:00", offset: -14400, dst: true)
        assertLocal(newYork, utc(2026, 11, 1, 5, 59, 59), "2026-11-01T01:59:59", offset: -14400, dst: true)
        assertLocal(newYork, utc(2026, 11, 1, 6), "2026-11-01T01:00:00", offset: -18000, dst: false)
        XCTAssertEqual(newYork.instants(for: LocalDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 15)), [])
        XCTAssertEqual(newYork.instants(for: LocalDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30)),
                       [utc(2026, 11, 1, 5, 30), utc(2026, 11, 1, 6, 30)])
    }

    func testLordHoweHalfHourDST() throws {
        let lordHowe = try zone("Australia/Lord_Howe")
        assertLocal(lordHowe, utc(2026, 4, 4, 14, 59, 59), "2026-04-05T01:59:59", offset: 39600, dst: true)
        assertLocal(lordHowe, utc(2026, 4, 4, 15), "2026-04-05T01:30:00", offset: 37800, dst: false)
        assertLocal(lordHowe, utc(2026, 10, 3, 15, 29, 59), "2026-10-04T01:59:59", offset: 37800, dst: false)
        assertLocal(lordHowe, utc(2026, 10, 3, 15, 30), "2026-10-04T02:30:00", offset: 39600, dst: true)
        // 01:45 happens twice in April (+11 then +10:30), never in October's 02:00-02:30 gap.
        XCTAssertEqual(lordHowe.instants(for: LocalDateTime(year: 2026, month: 4, day: 5, hour: 1, minute: 45)),
                       [utc(2026, 4, 4, 14, 45), utc(2026, 4, 4, 15, 15)])
        XCTAssertEqual(lordHowe.instants(for: LocalDateTime(year: 2026, month: 10, day: 4, hour: 2, minute: 15)), [])
    }

    func testFixedOffsetZones() throws {
        let kolkata = try zone("Asia/Kolkata")
        assertLocal(kolkata, utc(2026, 1, 15, 18, 30), "2026-01-16T00:00:00", offset: 19800, dst: false)
        assertLocal(kolkata, utc(2060, 7, 1), "2060-07-01T05:30:00", offset: 19800, dst: false)
        let utcZone = try zone("UTC")
        assertLocal(utcZone, utc(2026, 3, 29, 1), "2026-03-29T01:00:00", offset: 0, dst: false)
        XCTAssertEqual(utcZone.instants(for: LocalDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)), [utc(2026, 3, 29, 2, 30)])
    }

    /// Every transition zdump reports, in years inside the file's table (2026) and after it
    /// (2060, where only the POSIX footer rule can answer), must match our reading, one second
    /// before and at the transition.
    func testAgreesWithZdumpIncludingFooterYears() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zdump") else { throw XCTSkip("zdump (libc-bin) is not installed") }
        let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC", "America/Sao_Paulo",
                     "Pacific/Auckland", "America/Santiago", "Europe/Dublin"]
        var checked = 0
        for name in zones {
            let rules = try zone(name)
            for year in [2026, 2060] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/zdump")
                process.arguments = ["-v", "-c", "\(year),\(year + 1)", name]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                for line in output.split(separator: "\n") where line.contains(" UT = ") {
                    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                    // zone Www Mmm d hh:mm:ss yyyy UT = Www Mmm d hh:mm:ss yyyy ABBR isdst=N gmtoff=N
                    let instant = try Self.parse(Array(fields[2 ... 5]))
                    let local = try Self.parse(Array(fields[9 ... 12]))
                    guard let offset = Int32(fields[15].dropFirst("gmtoff=".count)) else { return XCTFail("bad line \(line)") }
                    let zoned = rules.zonedTime(at: instant)
                    XCTAssertEqual(zoned.utcOffset, offset, "\(name) at \(line)")
                    XCTAssertEqual(zoned.local.secondsSinceEpoch, local, "\(name) at \(line)")
                    XCTAssertEqual(zoned.type.isDST, fields[14] == "isdst=1", "\(name) at \(line)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 40)
    }

    private static func parse(_ fields: [Substring]) throws -> Int64 {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let time = fields[2].split(separator: ":").compactMap { Int($0) }
        guard let month = months.firstIndex(of: String(fields[0])), let day = Int(fields[1]), let year = Int(fields[3]), time.count == 3 else {
            throw CocoaError(.coderReadCorrupt)
        }
        return utc(year, month + 1, day, time[0], time[1], time[2])
    }

    func testZoneNamesAreValidated() {
        for bad in ["", "../etc/passwd", "/etc/localtime", "Europe/../../etc/passwd", "Europe//Berlin", "Europe/Berlin\n",
                    "Europe/Ber lin", String(repeating: "A", count: 65), "./UTC"] {
            assertPushError(.invalidZoneName) { try TimeZoneDatabase.system.rules(for: bad) }
        }
        assertPushError(.unknownZone) { try TimeZoneDatabase.system.rules(for: "Mars/Olympus_Mons") }
        XCTAssertNoThrow(try TimeZoneDatabase.system.rules(for: "Etc/GMT+5"))
    }

    func testVersion1FileAndCacheAndDamagedFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-tz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // A hand-made version 1 file: one transition at 1000000000 from +01:00 "AAA" to +02:00 "BBB" (DST).
        var v1: [UInt8] = Array("TZif".utf8) + [0] + [UInt8](repeating: 0, count: 15)
        func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        v1 += int32(0) + int32(0) + int32(0) + int32(1) + int32(2) + int32(8)
        v1 += int32(1_000_000_000) + [1]
        v1 += int32(3600) + [0, 0] + int32(7200) + [1, 4]
        v1 += Array("AAA\0BBB\0".utf8)
        try Data(v1).write(to: directory.appendingPathComponent("Test_One"))
        try Data(v1.prefix(50)).write(to: directory.appendingPathComponent("Truncated"))
        try Data("not a zone file".utf8).write(to: directory.appendingPathComponent("Garbage"))
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: directory.appendingPathComponent("Copy").path)

        let database = TimeZoneDatabase(directory: directory.path)
        let rules = try database.rules(for: "Test_One")
        XCTAssertEqual(rules.zonedTime(at: 999_999_999).utcOffset, 3600)
        XCTAssertEqual(rules.zonedTime(at: 999_999_999).type.abbreviation, "AAA")
        XCTAssertEqual(rules.zonedTime(at: 1_000_000_000).utcOffset, 7200)
        XCTAssertEqual(rules.zonedTime(at: 4_000_000_000).type.abbreviation, "BBB")
        assertPushError(.invalidZoneFile) { try database.rules(for: "Truncated") }
        assertPushError(.invalidZoneFile) { try database.rules(for: "Garbage") }

        // Read once, then served from the cache even when the file is gone.
        XCTAssertEqual(try database.rules(for: "Copy").zonedTime(at: utc(2026, 7, 1)).utcOffset, 7200)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("Copy"))
        XCTAssertEqual(try database.rules(for: "Copy").zonedTime(at: utc(2026, 1, 1)).utcOffset, 3600)
    }

    func testPosixRules() throws {
        let rule = try XCTUnwrap(PosixTZRule.parse("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"))
        XCTAssertEqual(rule.standard.utcOffset, 37800)
        XCTAssertEqual(rule.daylight?.type.utcOffset, 39600)
        let fixed = try XCTUnwrap(PosixTZRule.parse("IST-5:30"))
        XCTAssertEqual(fixed.type(at: 0).utcOffset, 19800)
        // Julian days: J60 is March 1 in any year.
        XCTAssertEqual(PosixTZDate.julianNoLeap(60).days(inYear: 2028), LocalDateTime.days(year: 2028, month: 3, day: 1))
        XCTAssertEqual(PosixTZDate.zeroBased(59).days(inYear: 2028), LocalDateTime.days(year: 2028, month: 2, day: 29))
        XCTAssertNil(try PosixTZRule.parse(""))
        for bad in ["CET-1CEST", "C-1", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.5.0,M10.5.0/3x"] {
            assertPushError(.invalidZoneFile) { try PosixTZRule.parse(bad) }
        }
    }

    func testCivilDates() {
        XCTAssertEqual(LocalDateTime(secondsSinceEpoch: 0).description, "1970-01-01T00:00:00")
        XCTAssertEqual(LocalDateTime(secondsSinceEpoch: -1).description, "1969-12-31T23:59:59")
        XCTAssertEqual(LocalDateTime(year: 2026, month: 2, day: 28).addingDays(1).description, "2026-03-01T00:00:00")
        XCTAssertEqual(LocalDateTime(year: 2028, month: 2, day: 28).addingDays(1).description, "2028-02-29T00:00:00")
        XCTAssertEqual(LocalDateTime(year: 2026, month: 3, day: 29).weekday, 0)
    }
}
