import GRDB

/// Device tokens (PSH-2): at most three active per user; retired ones are kept with why.
extension PushStore {
    /// Registers `token` for the user. A token already known (this or another user's, active or
    /// retired) is moved to this user and made active and newest. When that makes more than 3
    /// active devices, the oldest registrations are retired.
    @discardableResult
    public func registerDevice(userID: String, token: String, platform: DevicePlatform, now: Int64) throws(PushError) -> PushDevice {
        try PushPreferences.validateUserID(userID)
        guard !token.isEmpty, token.utf8.count <= Self.maxTokenBytes, !token.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw PushError(.invalidArgument, "A device token must be 1 to \(Self.maxTokenBytes) bytes without spaces or control characters.",
                            context: ["field": "token", "bytes": String(token.utf8.count)])
        }
        return try write("register a device") { db in
            try db.execute(sql: """
                INSERT INTO push_devices (user_id, token, platform, registered_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(token) DO UPDATE SET user_id = excluded.user_id, platform = excluded.platform,
                    registered_at = excluded.registered_at, retired_at = NULL, retired_reason = NULL
                """, arguments: [userID, token, platform.rawValue, now])
            // Newest first by registration time, then id (two registrations in one second).
            try db.execute(sql: """
                UPDATE push_devices SET retired_at = ?, retired_reason = 'replaced by a newer device'
                WHERE id IN (SELECT id FROM push_devices WHERE user_id = ? AND retired_at IS NULL
                             ORDER BY registered_at DESC, id DESC LIMIT -1 OFFSET ?)
                """, arguments: [now, userID, Self.maxActiveDevices])
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM push_devices WHERE token = ?", arguments: [token]) else {
                throw PushError(.databaseFailure, "The device just registered could not be read back.", context: ["user": userID])
            }
            return try Self.device(row)
        }
    }

    /// The user's active devices, newest first.
    public func activeDevices(for userID: String) throws(PushError) -> [PushDevice] {
        try read("read devices") { db in try Self.activeDevices(db, userID: userID) }
    }

    static func activeDevices(_ db: Database, userID: String) throws -> [PushDevice] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM push_devices WHERE user_id = ? AND retired_at IS NULL ORDER BY registered_at DESC, id DESC
            """), arguments: [userID])
        var devices: [PushDevice] = []
        for row in rows { devices.append(try device(row)) }
        return devices
    }

    /// Retires a token (the sender prunes UNREGISTERED ones, PSH-9). Returns whether it was active.
    @discardableResult
    public func retireDevice(token: String, reason: String, now: Int64) throws(PushError) -> Bool {
        try write("retire a device") { db in
            try db.execute(sql: "UPDATE push_devices SET retired_at = ?, retired_reason = ? WHERE token = ? AND retired_at IS NULL",
                           arguments: [now, reason, token])
            return db.changesCount > 0
        }
    }

    static func device(_ row: Row) throws(PushError) -> PushDevice {
        guard let platform = DevicePlatform(rawValue: row["platform"]) else {
            throw PushError(.databaseFailure, "A device has a platform this edge does not know.", context: ["user": row["user_id"] ?? ""])
        }
        return PushDevice(id: row["id"], userID: row["user_id"], token: row["token"], platform: platform,
                          registeredAt: row["registered_at"], retiredAt: row["retired_at"], retiredReason: row["retired_reason"])
    }
}
