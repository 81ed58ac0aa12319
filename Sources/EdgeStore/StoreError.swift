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
        }
        return StoreError(.databaseFailure, "The sync database \(path) reported an error while trying to \(action).",
                          context: context)
    }
}
