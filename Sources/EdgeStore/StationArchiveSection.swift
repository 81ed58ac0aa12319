import FoundationEssentials
import GRDB

/// A capability's part of the export document (issue #27 item 5): the capability owns its tables,
/// so it owns their rows in the document too. The store exports, validates and imports its own
/// rows (outbox, dead letters, conflicts, holds, push) and hands the rest to the sections the
/// caller gives (`StationSchema.archiveSections` in EdgeStation: enrollment, receiving).
///
/// A section's lists are top-level keys of the one document, as they were when the store wrote
/// them itself, so a version-1 document written before the split imports unchanged.
public protocol StationArchiveSection: Sendable {
    /// The document's top-level lists this section writes and reads.
    var keys: [String] { get }
    /// Whether it is imported before the store's own rows: a section whose local ids appear in
    /// outbox streams and credential names (enrollment) must give their new ids first.
    var importsFirst: Bool { get }
    /// The section's lists, read in the export's one read transaction.
    func export(_ db: Database) throws -> [String: [ArchiveValue]]
    /// What the schema cannot check, against the whole document (names in the store's rows that
    /// refer to this section's rows), before anything is written.
    func validate(_ archive: StationArchive) throws(StationArchiveError)
    /// Writes the section's rows in the import's one transaction; returns how names that carry
    /// the section's local ids change on this station (nil: none do).
    func apply(_ archive: StationArchive, _ db: Database, report: inout StationImportReport) throws -> (@Sendable (String) -> String)?
}

extension StationArchive {
    /// A section's list decoded into its rows; an absent list is empty.
    public func rows<Row: Decodable>(_ key: String, as type: Row.Type = Row.self) throws(StationArchiveError) -> [Row] {
        guard let values = sections[key] else { return [] }
        do {
            return try JSONDecoder().decode([Row].self, from: JSONEncoder().encode(values))
        } catch let error as StationArchiveError {
            // A nested list over its limit (`decodeList`) says so as itself.
            throw error
        } catch {
            throw StationArchiveError(.invalidDocument, "The export does not match models/station-export.schema.json: \(key)\(StationImport.describe(error).prefixedPath).")
        }
    }
}

private extension String {
    /// A decoding path continues the key (`orders[2].payload is missing`).
    var prefixedPath: String { hasPrefix("[") ? self : ": " + self }
}
