import EdgePush

/// `edge push prefs --json`.
struct PreferencesDocument: Encodable {
    let user: String
    let pushEnabled: Bool
    let timeZone: String
    let usesStationZone: Bool
    let quietStart: String
    let quietEnd: String
    let overrideTypes: [String]
    let disabledTypes: [String]

    init(_ p: PushPreferences, stationZone: String) {
        user = p.userID
        pushEnabled = p.pushEnabled
        timeZone = p.timeZone ?? stationZone
        usesStationZone = p.timeZone == nil
        quietStart = p.quietHours.start.description
        quietEnd = p.quietHours.end.description
        overrideTypes = p.overrideTypes.map(\.rawValue).sorted()
        disabledTypes = p.disabledTypes.map(\.rawValue).sorted()
    }

    enum CodingKeys: String, CodingKey {
        case user, pushEnabled = "push_enabled", timeZone = "time_zone", usesStationZone = "uses_station_zone",
             quietStart = "quiet_start", quietEnd = "quiet_end", overrideTypes = "override_types", disabledTypes = "disabled_types"
    }
}
