import EdgeAgent
import EdgeEnrollment
import EdgeKiosk
import EdgeReceiving
import EdgeStore
import EdgeSync

/// What every station database, export and sender knows besides the store's own, whatever the
/// role (issue #27 item 5): the capabilities' migrations, in the one order every opener uses
/// (`SchemaMigration` says why), their sections of the export document, their outbox kinds and
/// their sections of edge.json.
///
/// Decision: a dock's database has the clinic's tables too (and the other way round). A station
/// can change role, and an export from any station imports into any other.
public enum StationSchema {
    public static let migrations: [SchemaMigration] = [EnrollmentSchema.migration, ReceivingSchema.migration, EnrollmentSchema.holdKinds,
                                                           ReceivingSchema.receipts, ReceivingSchema.receiptTracking, EnrollmentSchema.attemptBootTime]
    public static let archiveSections: [any StationArchiveSection] = [EnrollmentArchive(), ReceivingArchive()]
    /// The kinds the sync core and the push intake treat apart (`OutboxKind`).
    public static let outboxKinds: [OutboxKind] = [GRNLedger.outboxKind]
    /// The capabilities' sections of edge.json, which every loader of the file checks it with
    /// (unknown keys and bad values refused whatever the role, AGT-10).
    public static let configurationSections: [ConfigurationSection] = [
        EnrollmentSettings.configurationSection, ReceivingSettings.configurationSection, KioskSettings.configurationSection,
    ]
}
