import ArgumentParser
import EdgeCommandLine
import EdgePush
import FoundationEssentials

/// `edge push badge USER`: the count on the user's app icon (PSH-5).
struct PushBadgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "badge",
        abstract: "Show a user's badge (pending approvals plus unread notifications); --reset as if they opened the inbox.")

    @OptionGroup var options: PushOptions
    @Argument(help: "The user's id.") var user: String
    @Flag(name: .customLong("reset"), help: "The user opened the inbox: the badge becomes 0.") var reset = false

    func run() throws {
        let file = try options.load()
        let store = try options.openStore(file)
        let badge = try PushOptions.run { () throws(PushError) -> Int in
            if reset { return try store.inboxOpened(userID: user, now: Int64(Date().timeIntervalSince1970)) }
            return try store.badge(for: user)
        }
        Output.stdout("\(badge)")
    }
}
