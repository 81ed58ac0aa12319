import EdgeCore
import GRDB

/// EdgeStore's error. Messages and context name files, streams and counts, never payload bytes.
public typealias StoreError = CodedError<StoreErrorCode>

extension CodedError where Code == StoreErrorCode {
    /// Wraps whatever a GRDB call threw: a StoreError passes through; SQLite's "corrupt" and
    /// "not a database" become `.corrupt` (an operator must act on those), anything else
    /// `.databaseFailure`.
    public static func wrapping(_ error: any Error, _ action: String, path: String) -> StoreError {
        if let storeError = error as? StoreError { return storeError }
        var context = ["path": path, "action": action, "sqlite": String(describing: error)]
        if let databaseError = error as? DatabaseError {
            context["sqliteCode"] = String(databaseError.extendedResultCode.rawValue)
            if databaseError.resultCode == .SQLITE_CORRUPT || databaseError.resultCode == .SQLITE_NOTADB {
                return StoreError(.corrupt, "The sync database \(path) is damaged or is not a SQLite database (\(action)).",
                                  context: context)
            }
            if let problem = storageProblem(databaseError, path: path) {
                context.merge(problem.context) { $1 }
                return StoreError(.storage, "The sync database \(path) could not \(action): \(problem.words).", context: context)
            }
        }
        let said = (error as? DatabaseError).map { ": SQLite said \(sqliteWords($0))" } ?? ""
        return StoreError(.databaseFailure, "The sync database \(path) reported an error while trying to \(action)\(said).",
                          context: context)
    }

    /// SQLite's own words ("table x already exists", "database is locked"), for messages: without
    /// them an operator, and a failed test's log, cannot tell a lock held by another process from
    /// a bad file. They name tables, columns and states, never a row's values.
    static func sqliteWords(_ error: DatabaseError) -> String {
        error.message ?? "\(error.resultCode)"
    }

    /// The disk's part in a SQLite error (issue #30 item 1): SQLite reports a full disk, a
    /// read-only one and an I/O error by code only, so the disk holding `path` is looked at to
    /// name the cause; nil for errors that are not the disk's (constraints, busy, misuse).
    public static func storageProblem(_ error: DatabaseError, path: String) -> StorageProblem? {
        switch error.resultCode {
        case .SQLITE_FULL: return StorageProblem.examine(path: path, likely: .full)
        case .SQLITE_IOERR: return StorageProblem.examine(path: path, likely: .ioError)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM: return StorageProblem.examine(path: path, likely: nil)
        default: return nil
        }
    }
}
