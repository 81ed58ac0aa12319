import ArgumentParser
import EdgeCommandLine
import EdgePush
import FoundationEssentials

/// `edge push devices USER`: list, register or retire a user's device tokens (PSH-2).
struct PushDevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List a user's devices; register (--add) or retire (--retire) a token read from stdin.",
        discussion: """
        Tokens are read from stdin, never from the command line: a registration token lets whoever
        holds the project's key push to that phone, and argv is visible to every local user.
        Listings show the first 8 characters only. At most 3 devices are active per user;
        registering a 4th retires the oldest.
        """
    )

    @OptionGroup var options: PushOptions
    @Argument(help: "The user's id.") var user: String
    @Option(name: .customLong("add"), help: "Register the token on stdin for this platform: android, ios or web.") var add: String?
    @Flag(name: .customLong("retire"), help: "Retire the token on stdin.") var retire = false
    @Flag(name: .customLong("json")) var json = false

    func validate() throws {
        if let add, DevicePlatform(rawValue: add.uppercased()) == nil { throw ValidationError("--add takes android, ios or web") }
        if add != nil && retire { throw ValidationError("--add and --retire cannot be combined") }
    }

    func run() throws {
        let file = try options.load()
        let store = try options.openStore(file)
        let now = Int64(Date().timeIntervalSince1970)
        if add != nil || retire {
            let bytes = try StandardInput.readAll(max: PushStore.maxTokenBytes + 2)
            let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if let add, let platform = DevicePlatform(rawValue: add.uppercased()) {
                let device = try PushOptions.run { () throws(PushError) in
                    try store.registerDevice(userID: user, token: token, platform: platform, now: now)
                }
                Output.stdout("registered \(Self.short(device.token)) (\(platform.rawValue)) for \(Output.printable(user))")
            } else {
                let retired = try PushOptions.run { () throws(PushError) in try store.retireDevice(token: token, reason: "retired by the operator", now: now) }
                Output.stdout(retired ? "retired \(Self.short(token))" : "\(Self.short(token)) was not an active device")
            }
        }
        let devices = try PushOptions.run { () throws(PushError) in try store.activeDevices(for: user) }
        if json {
            Output.stdout(Output.json(devices.map { DeviceDocument(token: Self.short($0.token), platform: $0.platform.rawValue,
                                                                                registeredAt: PushStatusDocument.time($0.registeredAt)) }))
        } else if !(add != nil || retire) {
            if devices.isEmpty { Output.stdout("\(Output.printable(user)) has no active device") }
            for device in devices {
                Output.stdout("\(Self.short(device.token))  \(device.platform.rawValue)  registered \(PushStatusDocument.time(device.registeredAt))")
            }
        }
    }

    /// The first 8 characters and an ellipsis: enough to tell devices apart.
    static func short(_ token: String) -> String {
        Output.printable(token.count > 8 ? String(token.prefix(8)) + "…" : token)
    }
}
