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
        // Columns by position, not by name: every notification reads its user's row (issue #31).
        let statement = try db.cachedStatement(sql: """
            SELECT user_id, push_enabled, time_zone, quiet_start, quiet_end, override_types, disabled_types FROM push_users WHERE user_id = ?
            """)
        guard let row = try Row.fetchOne(statement, arguments: [userID]) else { return try PushPreferences(userID: userID) }
        let quiet = try QuietHours(start: TimeOfDay(minuteOfDay: row[3]), end: TimeOfDay(minuteOfDay: row[4]))
        return try PushPreferences(userID: row[0], pushEnabled: row[1], timeZone: row[2], quietHours: quiet,
                                   overrideTypes: decode(row[5]), disabledTypes: decode(row[6]))
    }

    /// Sorted, so the stored text is stable.
    static func encode(_ types: Set<NotificationType>) -> String {
        types.map(\.rawValue).sorted().joined(separator: ",")
    }

    /// Unknown names (a type a newer edge wrote) are skipped, not fatal. Split on bytes: the
    /// names are ASCII, and Characters cost ~5k instructions a notification (issue #31).
    static func decode(_ text: String) -> Set<NotificationType> {
        var types: Set<NotificationType> = []
        for name in text.utf8.split(separator: UInt8(ascii: ",")) {
            if let type = NotificationType(rawValue: String(decoding: name, as: UTF8.self)) { types.insert(type) }
        }
        return types
    }
}
