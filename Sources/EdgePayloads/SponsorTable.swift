import FoundationEssentials

/// The sponsor pattern table (ENR-4): linking-code prefix -> sponsor. Ships as configuration.
///
/// JSON form: an array of `{"prefix", "sponsor_id", "backend_url"}` objects, either at the top level
/// or under `"sponsors"` (so the same `edge.json` that holds `PayloadConfig` can be read directly).
/// An array rather than an object keyed by prefix, because JSON objects silently swallow duplicate
/// keys and a duplicated prefix must be refused, not resolved by accident.
/// An empty table is allowed (a receiving-dock kiosk has no sponsors); every code is then unknown.
public struct SponsorTable: Sendable, Equatable, Decodable {
    public let entries: [SponsorEntry]
    private let byPrefix: [String: SponsorEntry]

    public static let empty = SponsorTable(checkedEntries: [])

    public init(entries: [SponsorEntry]) throws(PayloadConfigError) {
        var firstIndex: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let earlier = firstIndex[entry.prefix] {
                throw PayloadConfigError(.duplicatePrefix,
                    "prefix \"\(entry.prefix)\" is listed twice (sponsors[\(earlier)] and sponsors[\(index)])",
                    context: ["prefix": entry.prefix, "index": String(index)])
            }
            firstIndex[entry.prefix] = index
        }
        self.init(checkedEntries: entries)
    }

    private init(checkedEntries: [SponsorEntry]) {
        entries = checkedEntries
        byPrefix = Dictionary(checkedEntries.map { ($0.prefix, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the table from JSON `Data` (the CLI reads the file).
    public init(json: Data) throws(PayloadConfigError) {
        let firstByte = json.first(where: { !ASCII.isWhitespace($0) })
        do {
            if firstByte == UInt8(ascii: "{") {
                self = try JSONDecoder().decode(SponsorTableDocument.self, from: json).sponsors
            } else {
                self = try JSONDecoder().decode(SponsorTable.self, from: json)
            }
        } catch {
            throw PayloadConfigError.from(error)
        }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var entries: [SponsorEntry] = []
        while !container.isAtEnd {
            entries.append(try container.decode(SponsorEntry.self))
        }
        // Duplicate-prefix messages already name both indices; no path prefix needed.
        try self.init(entries: entries)
    }

    public func sponsor(forPrefix prefix: String) -> SponsorEntry? { byPrefix[prefix] }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    public static func == (lhs: SponsorTable, rhs: SponsorTable) -> Bool { lhs.entries == rhs.entries }
}
