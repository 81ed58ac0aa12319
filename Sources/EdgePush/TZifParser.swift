/// Reads a TZif file (RFC 8536, versions 1 to 4).
///
/// Decision: our own reader instead of Foundation's TimeZone, which needs ICU
/// (FoundationInternationalization, ~5 ms at every process start); the TZif format is small and
/// the system's tzdata is the same database ICU would use.
enum TZifParser {
    /// Files above this are not zone files (the largest in tzdata are ~4 KB).
    static let maxBytes = 256 * 1024

    static func parse(_ bytes: [UInt8], name: String) throws(PushError) -> TimeZoneRules {
        var reader = Reader(bytes: bytes, name: name)
        let v1 = try reader.header()
        guard v1.version != 0 else {
            // Version 1: 32-bit times, no footer.
            return try reader.block(v1, timeSize: 4, footer: nil)
        }
        try reader.skip(v1.dataLength(timeSize: 4))
        let v2 = try reader.header()
        var bodyReader = reader
        try bodyReader.skip(v2.dataLength(timeSize: 8))
        let footer = try bodyReader.footer()
        return try reader.block(v2, timeSize: 8, footer: PosixTZRule.parse(footer))
    }

    private struct Header {
        let version: UInt8
        let isUTCCount: Int
        let isStandardCount: Int
        let leapCount: Int
        let timeCount: Int
        let typeCount: Int
        let charCount: Int

        func dataLength(timeSize: Int) -> Int {
            timeCount * timeSize + timeCount + typeCount * 6 + charCount + leapCount * (timeSize + 4) + isStandardCount + isUTCCount
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        let name: String
        var offset = 0

        func failure(_ why: String) -> PushError {
            PushError(.invalidZoneFile, "The time zone file for \(name) cannot be read (\(why)).",
                      context: ["zone": name, "offset": String(offset)])
        }

        mutating func skip(_ count: Int) throws(PushError) {
            guard count >= 0, bytes.count - offset >= count else { throw failure("truncated") }
            offset += count
        }

        mutating func uint8() throws(PushError) -> UInt8 {
            guard offset < bytes.count else { throw failure("truncated") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func int32() throws(PushError) -> Int32 {
            var value: UInt32 = 0
            for _ in 0 ..< 4 { value = value << 8 | UInt32(try uint8()) }
            return Int32(bitPattern: value)
        }

        mutating func int64() throws(PushError) -> Int64 {
            var value: UInt64 = 0
            for _ in 0 ..< 8 { value = value << 8 | UInt64(try uint8()) }
            return Int64(bitPattern: value)
        }

        mutating func count() throws(PushError) -> Int {
            let value = try int32()
            guard value >= 0, value <= 100_000 else { throw failure("count out of range") }
            return Int(value)
        }

        mutating func header() throws(PushError) -> Header {
            guard try uint8() == 0x54, try uint8() == 0x5A, try uint8() == 0x69, try uint8() == 0x66 else {
                throw failure("no TZif magic")
            }
            let version = try uint8()
            guard version == 0 || (version >= 0x32 && version <= 0x34) else { throw failure("unknown version") }
            try skip(15)
            return Header(version: version, isUTCCount: try count(), isStandardCount: try count(), leapCount: try count(),
                          timeCount: try count(), typeCount: try count(), charCount: try count())
        }

        /// The footer: newline, POSIX TZ string, newline.
        mutating func footer() throws(PushError) -> String {
            guard try uint8() == 0x0A else { throw failure("footer does not start with a newline") }
            let begin = offset
            while offset < bytes.count, bytes[offset] != 0x0A { offset += 1 }
            guard offset < bytes.count else { throw failure("footer does not end with a newline") }
            return String(decoding: bytes[begin ..< offset], as: UTF8.self)
        }

        mutating func block(_ header: Header, timeSize: Int, footer: PosixTZRule?) throws(PushError) -> TimeZoneRules {
            guard header.typeCount >= 1, header.charCount >= 1 else { throw failure("no local time types") }
            // Decision: leap-second ("right/") zones are refused: their transition times count
            // leap seconds, so treating them as Unix seconds would be off by up to 27 s.
            guard header.leapCount == 0 else { throw failure("leap-second zones are not supported") }
            var times: [Int64] = []
            for _ in 0 ..< header.timeCount {
                times.append(timeSize == 4 ? Int64(try int32()) : try int64())
            }
            var indices: [Int] = []
            for _ in 0 ..< header.timeCount {
                let index = Int(try uint8())
                guard index < header.typeCount else { throw failure("transition type out of range") }
                indices.append(index)
            }
            var raw: [(offset: Int32, isDST: Bool, abbreviationIndex: Int)] = []
            for _ in 0 ..< header.typeCount {
                let utcOffset = try int32()
                let isDST = try uint8()
                let abbreviationIndex = Int(try uint8())
                guard utcOffset > -89_999, utcOffset < 93_599, isDST <= 1, abbreviationIndex < header.charCount else {
                    throw failure("local time type out of range")
                }
                raw.append((utcOffset, isDST == 1, abbreviationIndex))
            }
            let characters = Array(bytes[offset ..< min(bytes.count, offset + header.charCount)])
            try skip(header.charCount)
            let types = raw.map { entry in
                let tail = characters[entry.abbreviationIndex...]
                let end = tail.firstIndex(of: 0) ?? tail.endIndex
                return LocalTimeType(utcOffset: entry.offset, isDST: entry.isDST,
                                     abbreviation: String(decoding: tail[..<end], as: UTF8.self))
            }
            // The standard/wall and UT/local indicators only matter for POSIX-style rules made
            // from the file without its footer, which this reader never does.
            try skip(header.isStandardCount + header.isUTCCount)
            var transitions: [ZoneTransition] = []
            for (time, index) in zip(times, indices) {
                if let previous = transitions.last, previous.instant >= time { throw failure("transitions out of order") }
                transitions.append(ZoneTransition(instant: time, type: types[index]))
            }
            return TimeZoneRules(name: name, transitions: transitions, initialType: types[0], footer: footer)
        }
    }
}
