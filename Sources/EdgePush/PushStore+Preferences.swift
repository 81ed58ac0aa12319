import GRDB

/// Users' push preferences (PSH-2, PSH-3): quiet hours, zone, disabled and overriding types.
extension PushStore {
    /// Stores `preferences`, replacing the user's previous ones. Throws `.unknownZone` /
    /// `.invalidZoneFile` when the zone cannot be used, so a bad zone is refused when configured,
    /// not discovered at night.
    public func savePreferences(_ preferences: PushPreferences, now: Int64) throws(PushError) {
        if let zone = preferences.timeZone { _ = try zones.rules(for: zone) }
        try write("save push preferences") { db in
            try db.execute(sql: """
                INSERT INTO push_users (user_id, push_enabled, time_zone, quiet_start, quiet_end, override_types, disabled_types, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(user_id) DO UPDATE SET push_enabled = excluded.push_enabled, time_zone = excluded.time_zone,
                    quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, override_types = excluded.override_types,
                    disabled_types = excluded.disabled_types, updated_at = excluded.updated_at
                """, arguments: [preferences.userID, preferences.pushEnabled, preferences.timeZone,
                                 preferences.quietHours.start.minuteOfDay, preferences.quietHours.end.minuteOfDay,
                                 Self.encode(preferences.overrideTypes), Self.encode(preferences.disabledTypes), now])
        }
    }

    /// The user's preferences; the defaults (push on, station zone, 22:00-07:00, approvals
    /// override) for a user who never set any.
    public func preferences(for userID: String) throws(PushError) -> PushPreferences {
        try PushPreferences.validateUserID(userID)
        return try read("read push preferences") { db in try Self.preferences(db, userID: userID) }
    }

    static func preferences(_ db: Database, userID: String) throws -> PushPreferences {
        let statement = try db.cachedStatement(sql: "SELECT * FROM push_users WHERE user_id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [userID]) else { return try PushPreferences(userID: userID) }
        return try preferences(row)
    }

    static func preferences(_ row: Row) throws(PushError) -> PushPreferences {
        let quiet = try QuietHours(start: TimeOfDay(minuteOfDay: row["quiet_start"]), end: TimeOfDay(minuteOfDay: row["quiet_end"]))
        return try PushPreferences(userID: row["user_id"], pushEnabled: row["push_enabled"], timeZone: row["time_zone"],
                                   quietHours: quiet, overrideTypes: decode(row["override_types"]),
                                   disabledTypes: decode(row["disabled_types"]))
    }

    /// Sorted, so the stored text is stable.
    static func encode(_ types: Set<NotificationType>) -> String {
        types.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// Unknown names (a type a newer edge wrote) are skipped, not fatal.
    static func decode(_ text: String) -> Set<NotificationType> {
        Set(text.split(separator: ",").compactMap { NotificationType(rawValue: String($0)) })
    }
}
