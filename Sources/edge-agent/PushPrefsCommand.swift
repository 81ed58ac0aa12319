import ArgumentParser
import EdgeCommandLine
import EdgePush
import FoundationEssentials

/// `edge push prefs USER`: show or change a user's preferences (PSH-2, PSH-3).
struct PushPrefsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefs",
        abstract: "Show or change a user's push preferences: zone, quiet hours, overrides, switched-off types.",
        discussion: """
        Without options, shows them. Options change only what they name. Quiet hours are a
        half-open local window such as 22:00-07:00; an empty window and windows over 20 h are
        refused. --zone station clears the user's zone so the station's is used.
        """
    )

    @OptionGroup var options: PushOptions
    @Argument(help: "The user's id.") var user: String
    @Option(name: .customLong("zone"), help: "IANA time zone, e.g. Europe/Berlin, or 'station'.") var zone: String?
    @Option(name: .customLong("quiet"), help: "Quiet hours START-END, e.g. 22:00-07:00.") var quiet: String?
    @Option(name: .customLong("override"), help: "Comma list of types that bypass quiet hours ('' for none).") var overrides: String?
    @Option(name: .customLong("disable"), help: "Comma list of types switched off ('' for none).") var disabled: String?
    @Option(name: .customLong("push"), help: "on or off.") var push: String?
    @Flag(name: .customLong("json")) var json = false

    func validate() throws {
        if let push, push != "on", push != "off" { throw ValidationError("--push takes on or off") }
        if let quiet, quiet.split(separator: "-").count != 2 { throw ValidationError("--quiet takes START-END, e.g. 22:00-07:00") }
        for list in [overrides, disabled].compactMap({ $0 }) where (try? Self.types(list)) == nil {
            throw ValidationError("types are \(NotificationType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let file = try options.load()
        let store = try options.openStore(file)
        var preferences = try PushOptions.run { () throws(PushError) in try store.preferences(for: user) }
        let changing = zone != nil || quiet != nil || overrides != nil || disabled != nil || push != nil
        if changing {
            preferences = try PushOptions.run { () throws(PushError) -> PushPreferences in
                var quietHours = preferences.quietHours
                if let quiet {
                    let parts = quiet.split(separator: "-").map(String.init)
                    quietHours = try QuietHours(start: TimeOfDay(parts.first ?? ""), end: TimeOfDay(parts.last ?? ""))
                }
                let timeZone = zone.map { $0 == "station" ? nil : $0 } ?? preferences.timeZone
                let updated = try PushPreferences(
                    userID: user, pushEnabled: push.map { $0 == "on" } ?? preferences.pushEnabled, timeZone: timeZone,
                    quietHours: quietHours, overrideTypes: try overrides.map(Self.types) ?? preferences.overrideTypes,
                    disabledTypes: try disabled.map(Self.types) ?? preferences.disabledTypes)
                try store.savePreferences(updated, now: Int64(Date().timeIntervalSince1970))
                return updated
            }
        }
        let zoneName = preferences.timeZone ?? store.stationZone
        if json {
            Output.stdout(Output.json(PreferencesDocument(preferences, stationZone: store.stationZone)))
        } else {
            Output.stdout("user \(Output.printable(user)): push \(preferences.pushEnabled ? "on" : "off"), zone \(zoneName)\(preferences.timeZone == nil ? " (the station's)" : "")")
            Output.stdout("quiet hours \(preferences.quietHours.start)-\(preferences.quietHours.end); bypassed by URGENT and \(Self.list(preferences.overrideTypes))")
            Output.stdout("switched off: \(Self.list(preferences.disabledTypes))")
        }
    }

    static func types(_ list: String) throws(PushError) -> Set<NotificationType> {
        var types: Set<NotificationType> = []
        for name in list.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces).uppercased()
            guard let type = NotificationType(rawValue: trimmed) else {
                throw PushError(.invalidArgument, "\(trimmed) is not a notification type.", context: ["type": trimmed])
            }
            types.insert(type)
        }
        return types
    }

    static func list(_ types: Set<NotificationType>) -> String {
        types.isEmpty ? "none" : types.map(\.rawValue).sorted().joined(separator: ", ")
    }
}
