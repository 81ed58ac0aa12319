import ArgumentParser
import EdgeCommandLine
import EdgeFCM
import EdgePush
import FoundationEssentials

/// `edge push send`: one notification into the relay (PSH-1), sent at once unless quiet hours
/// hold it or --no-send is given.
struct PushSendCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Record a notification for a user and send it to their devices.",
        discussion: """
        The user's preferences decide: sent now, held until their quiet hours end (then sent in a
        digest by `edge push run`), or not sent (push or the type switched off, TTL passed).
        Types: \(NotificationType.allCases.map(\.rawValue).joined(separator: ", ")).

        Exit status:
          0   recorded, and sent or held as the preferences say
          1   refused (bad input), suppressed by the preferences, or no device took it
          2   configuration, vault or database could not be used
        """
    )

    @OptionGroup var options: PushOptions
    @OptionGroup var vault: VaultCommand.Location

    @Option(name: .customLong("user"), help: "The user's id.") var user: String
    @Option(name: .customLong("type"), help: "Notification type, e.g. APPROVAL_PENDING.") var type: String
    @Option(name: .customLong("title")) var title: String
    @Option(name: .customLong("body")) var body: String = ""
    @Option(name: .customLong("priority"), help: "URGENT, HIGH or NORMAL.") var priority: String = "NORMAL"
    @Option(name: .customLong("link"), help: "Deep link in the app, e.g. /approvals/42.") var link: String?
    @Option(name: .customLong("ttl"), help: "Seconds the notification is worth delivering.") var ttl: Int64 = 86_400
    @Flag(name: .customLong("no-send"), help: "Only record it; `edge push run` or the agent sends it.") var noSend = false

    func validate() throws {
        guard NotificationType(rawValue: type.uppercased()) != nil else {
            throw ValidationError("--type must be one of \(NotificationType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard NotificationPriority(rawValue: priority.uppercased()) != nil else {
            throw ValidationError("--priority must be URGENT, HIGH or NORMAL")
        }
    }

    func runAsync() async throws {
        let file = try options.load()
        let store = try options.openStore(file)
        let now = Int64(Date().timeIntervalSince1970)
        let accepted = try PushOptions.run { () throws(PushError) -> AcceptedNotification in
            let notification = try PushNotification(
                userID: user, type: NotificationType(rawValue: type.uppercased()) ?? .kpiAlert,
                priority: NotificationPriority(rawValue: priority.uppercased()) ?? .normal,
                title: title, body: body, deepLink: link, ttlSeconds: ttl, createdAt: now)
            return try store.accept(notification, now: now)
        }
        let record = accepted.record
        switch accepted.decision {
        case .sendNow:
            Output.stdout("notification \(record.id) for \(Output.printable(user)): QUEUED, badge \(accepted.badge)")
        case .hold(let until):
            Output.stdout("notification \(record.id) for \(Output.printable(user)): HELD for quiet hours until \(PushStatusDocument.time(until)); badge \(accepted.badge)")
            return
        case .suppressed(let reason):
            Output.stdout("notification \(record.id) for \(Output.printable(user)): not sent (\(reason.rawValue))")
            throw ExitCode(1)
        }
        if noSend { return }
        guard file.push != nil else {
            Output.stdout("no push section in the configuration: recorded, not sent")
            return
        }
        let connection = try PushConnection.open(file, store: store, vault: vault)
        defer { connection.transport.shutdown() }
        let report = try await PushOptions.runAsync { () async throws(PushError) -> PushSendReport in try await connection.relay.pass() }
        Output.stdout(PushConnection.summary(report))
        let status = try PushOptions.run { () throws(PushError) in try store.notification(id: record.id).status }
        Output.stdout("notification \(record.id): \(status.rawValue)")
        if status != .sent { throw ExitCode(1) }
    }
}
