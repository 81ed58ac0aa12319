import EdgeStore
import FoundationEssentials
import GRDB

/// Vendor names the dock has learned (issue #29: an order shows "Nordhafen Industrial Supply
/// GmbH", not its vendor id): from vendor card lookups (RCV-4) and, when an order is looked up
/// online, from one vendor lookup the first time its vendor is seen. A cache in the station
/// database, so a cached order shows its vendor's name offline too.
///
/// Decision: a cache, not station data: not exported (`edge export`); a name the backend changes
/// is learned again when the vendor's card is scanned.
public struct VendorNames: Sendable {
    public let database: EdgeDatabase
    /// Hostile-input bound on a stored name.
    public static let maxNameBytes = 200

    public init(database: EdgeDatabase) {
        self.database = database
    }

    /// The name, or nil when this station never learned it (or the database cannot say).
    public func name(_ vendorID: String) -> String? {
        try? database.dbWriter.read { db in
            try String.fetchOne(db, sql: "SELECT name FROM receiving_vendor_names WHERE vendor_id = ?", arguments: [vendorID.lowercased()])
        }
    }

    /// Learned from the backend's answer; a failure to keep it only costs the name on screen.
    public func store(_ vendorID: String, name: String, now: Double) {
        let name = String(name.prefix(Self.maxNameBytes))
        _ = try? database.dbWriter.write { db in
            try db.execute(sql: """
                INSERT INTO receiving_vendor_names (vendor_id, name, fetched_at) VALUES (?, ?, ?)
                ON CONFLICT (vendor_id) DO UPDATE SET name = excluded.name, fetched_at = excluded.fetched_at
                """, arguments: [vendorID.lowercased(), name, now])
        }
    }
}
