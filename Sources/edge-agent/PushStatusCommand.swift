import ArgumentParser
import EdgeCommandLine
import EdgePush
import FoundationEssentials

/// `edge push status`: notification records per status, what is held and until when, devices,
/// badges (PSH-11 metrics).
struct PushStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Notification records per status, held notifications and digests, devices and badges.",
        discussion: "With --json, one object valid against models/push-status.schema.json.")

    @OptionGroup var options: PushOptions
    @Flag(name: .customLong("json")) var json = false

    func run() throws {
        let file = try options.load()
        let store = try options.openStore(file)
        let overview = try PushOptions.run { () throws(PushError) in try store.overview() }
        let document = PushStatusDocument(database: store.database.path, stationZone: store.stationZone, configured: file.push != nil,
                                          overview: overview)
        if json {
            Output.stdout(Output.json(document))
            return
        }
        Output.stdout("push database \(document.database), station zone \(document.stationZone)"
                      + (document.configured ? "" : "; no push section: nothing is sent"))
        Output.stdout(NotificationStatus.allCases.map { "\($0.rawValue) \(overview.counts[$0] ?? 0)" }.joined(separator: ", "))
        if let next = document.nextRelease { Output.stdout("\(document.held) held for quiet hours; the first window ends \(next)") }
        if let next = document.nextDigestAt { Output.stdout("\(document.queuedDigests) digests queued; the first is due \(next)") }
        Output.stdout("\(document.users) users, \(document.activeDevices) active devices (\(document.retiredDevices) retired), badges total \(document.badgeTotal)")
    }
}
