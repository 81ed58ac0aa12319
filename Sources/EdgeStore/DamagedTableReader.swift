import GRDB

/// Reads what can still be read of one rowid table of a damaged SQLite file, row by row, for
/// `OutboxSalvage`.
///
/// A plain `SELECT *` stops at the first broken page and gives nothing after it. Here:
/// - the row ids come from the table itself, scanned in rowid order; where a scan breaks it seeks
///   past the break (one id further at a time, then doubling after 64 misses in a row, up to the
///   highest id known) and scans on, so the pages after a broken one are still read;
/// - and from each of its indexes, read alone (an index holds its columns and the row id, so a
///   row whose table page is lost is still known, with its idempotency key or sequence);
/// - then every known id is read on its own, so one bad row costs only itself.
struct DamagedTableReader {
    /// What is known of a row from the indexes, by column name, when its own page is lost.
    typealias Known = [String: DatabaseValue]

    let db: Database
    let table: String

    /// Every id the table and its indexes name, with what the indexes hold of each, and whether
    /// any read broke off.
    func rowIDs() -> (ids: [Int64: Known], broken: Bool) {
        var ids: [Int64: Known] = [:]
        var broken = false
        for (name, columns) in indexes() {
            let selected = (["rowid"] + columns).map(Self.quoted).joined(separator: ", ")
            do {
                let cursor = try Row.fetchCursor(db, sql: "SELECT \(selected) FROM \(Self.quoted(table)) INDEXED BY \(Self.quoted(name))")
                while let row = try cursor.next() {
                    guard let id = Self.integer(row[0] as DatabaseValue) else { continue }
                    var known = ids[id] ?? [:]
                    for (offset, column) in columns.enumerated() { known[column] = row[offset + 1] as DatabaseValue }
                    ids[id] = known
                }
            } catch {
                broken = true
            }
        }
        let highest = max(ids.keys.max() ?? 0, sequenceTableHighest() ?? 0)
        var position: Int64 = 1
        var step: Int64 = 1
        var misses = 0
        while true {
            do {
                let statement = try db.cachedStatement(sql: "SELECT rowid FROM \(Self.quoted(table)) NOT INDEXED WHERE rowid >= ? ORDER BY rowid")
                let cursor = try Int64.fetchCursor(statement, arguments: [position])
                while let id = try cursor.next() {
                    if ids[id] == nil { ids[id] = [:] }
                    guard id < Int64.max else { return (ids, broken) }
                    position = id + 1
                    step = 1
                    misses = 0
                }
                return (ids, broken)
            } catch {
                broken = true
                guard position < highest else { return (ids, broken) }
                misses += 1
                if misses > 64 { step = min(step * 2, 1 << 40) }
                position += step
            }
        }
    }

    /// The row with `id`, or nil when its page cannot be read.
    func row(id: Int64) -> Row? {
        do {
            return try Row.fetchOne(db, sql: "SELECT * FROM \(Self.quoted(table)) WHERE rowid = ?", arguments: [id])
        } catch {
            return nil
        }
    }

    /// The table's indexes and their columns, as far as the schema can be read.
    private func indexes() -> [(String, [String])] {
        guard let names = try? String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", arguments: [table]) else {
            return []
        }
        return names.compactMap { name in
            guard let columns = try? String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [name]),
                  !columns.isEmpty else { return nil }
            return (name, columns)
        }
    }

    /// AUTOINCREMENT's record of the largest id the table ever had.
    private func sequenceTableHighest() -> Int64? {
        (try? Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table])) ?? nil
    }

    // MARK: Values, never trusting their types (a damaged record may hold anything)

    static func integer(_ value: DatabaseValue?) -> Int64? {
        guard let value else { return nil }
        switch value.storage {
        case .int64(let number): return number
        case .double(let number) where number.rounded() == number && abs(number) < 9e15: return Int64(number)
        default: return nil
        }
    }

    static func real(_ value: DatabaseValue?) -> Double? {
        guard let value else { return nil }
        switch value.storage {
        case .int64(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }

    static func text(_ value: DatabaseValue?) -> String? {
        guard let value else { return nil }
        switch value.storage {
        case .string(let text): return text
        case .blob(let data): return String(validating: data, as: UTF8.self)
        default: return nil
        }
    }

    static func bytes(_ value: DatabaseValue?) -> [UInt8]? {
        guard let value else { return nil }
        switch value.storage {
        case .blob(let data): return [UInt8](data)
        case .string(let text): return Array(text.utf8)
        default: return nil
        }
    }

    /// An SQL identifier in double quotes.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
