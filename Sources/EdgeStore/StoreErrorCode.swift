/// What went wrong in EdgeStore, for callers that branch on it (`edge sync status`, the sender).
public enum StoreErrorCode: String, Sendable, Hashable {
    /// The database file failed `PRAGMA quick_check`, is not a SQLite database, or is empty.
    case corrupt
    /// The database file could not be opened or created (permissions, missing directory, disk).
    case openFailed
    /// The database holds migrations this binary does not know: a newer edge wrote it (a
    /// downgrade). Refused at open, nothing changed.
    case newerVersion
    /// A stream or kind name is empty, longer than 200 bytes, or contains control characters.
    case invalidName
    /// An argument is out of range (empty lease owner, non-positive lease time or limit).
    case invalidArgument
    /// The payload is not valid JSON.
    case invalidPayload
    /// The payload is larger than `Outbox.maxPayloadBytes`.
    case payloadTooLarge
    /// Enqueueing would exceed the configured `OutboxLimits`; nothing was written or dropped.
    case full
    /// No outbox entry, dead letter or conflict with that id.
    case notFound
    /// The entry is not leased by this owner (its lease expired and another sender took it).
    case leaseLost
    /// The disk holding the database refused a write (full, read-only, quota, I/O error): the
    /// message names the database and the cause, `context["cause"]` which (`StorageProblem`).
    /// Nothing of the transaction was written; what was committed before is intact.
    case storage
    /// SQLite reported an error; `context["sqlite"]` has its description.
    case databaseFailure
}
