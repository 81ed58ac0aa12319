import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeContract
import EdgeImaging
import EdgePush
import EdgeReceiving
import EdgeStation
import EdgeStore
import FoundationEssentials

/// `edge receive PO-...`: the order and its lines (RCV-1); with --confirm, the GRN (RCV-2, RCV-3).
struct ReceiveCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Look a purchase order up (cached for offline use) or confirm its delivery as a GRN.",
        discussion: """
        Without --confirm, shows the order and its lines: fresh from the backend, or the cached
        copy and its age when the backend cannot be reached.

        With --confirm, one --line per delivered line: LINE=QTY[:FLAG[:NOTE]], FLAG one of short,
        excess, damaged (e.g. --line 1=120 --line 2=8:short:"two cartons missing"). The GRN is
        checked against the order, queued in the outbox with its photo (--photo FILE or
        --photo-camera DEV, stored as JPEG by SHA-256) and sent once: now when the backend can be
        reached, later by `edge run` or `edge sync run` otherwise. Offline, only an order this
        station has looked up before can be confirmed.

        With --json, one object valid against models/receive-order.schema.json (lookup) or
        models/receive-confirmation.schema.json (--confirm).

        Exit status:
          0   the order was shown / the GRN was applied by the backend
          1   the GRN is queued and will be sent once when the backend can be reached
          2   configuration, vault or database could not be used
          3   the order is unknown to the backend, or offline and never looked up here
          4   refused before anything was queued: bad PO number, quantities or photo
          5   conflict: the server's version won; what changed is shown line by line
          6   the backend refused the GRN (a dead letter, see `edge sync status`)
        """
    )

    @Argument(help: ArgumentHelp("The purchase order number (PO-YYYY-NNNNN).", valueName: "PO"))
    var poNumber: String

    @Flag(name: .customLong("confirm"), help: "Confirm the delivery (a GRN) with the --line quantities.")
    var confirm = false

    @Option(name: .customLong("line"), help: ArgumentHelp("LINE=QTY[:short|excess|damaged[:NOTE]]; repeat per line.", valueName: "SPEC"))
    var lines: [String] = []

    @Option(name: .customLong("photo"), help: ArgumentHelp("Photo evidence from an image file (PNG, JPEG, PNM).", valueName: "FILE"))
    var photo: String?

    @Option(name: .customLong("photo-camera"), help: ArgumentHelp("Photo evidence from this camera at its best resolution.", valueName: "DEV"))
    var photoCamera: String?

    @Flag(name: .customLong("json")) var json = false

    @OptionGroup var options: SyncOptions
    @OptionGroup var vault: VaultCommand.Location

    func validate() throws {
        if !confirm, !lines.isEmpty || photo != nil || photoCamera != nil {
            throw ValidationError("--line, --photo and --photo-camera need --confirm")
        }
        if confirm, lines.isEmpty { throw ValidationError("--confirm needs at least one --line LINE=QTY") }
        if photo != nil, photoCamera != nil { throw ValidationError("give --photo or --photo-camera, not both") }
    }

    func runAsync() async throws {
        let session = try ReceivingSession.open(options: options, vault: vault)
        defer { session.close() }
        let dock = session.parts.dock
        if !confirm {
            let lookup = try await Self.run(4) { () async throws(ReceivingError) in try await dock.lookupOrder(poNumber) }
            let document = OrderDocument(lookup, now: dock.now)
            print(document, lines: document.text)
            if !document.available { throw ExitCode(3) }
            return
        }
        let draft = GRNDraft(poNumber: poNumber, lines: try await Self.run(4) { () throws(ReceivingError) in try lines.map(GRNDraft.parseLine) })
        let input: PhotoInput? = photo.map { .file(path: $0) } ?? photoCamera.map { .camera(device: $0) }
        let images = try await Self.run(4) { () throws(ReceivingError) -> [GrayImage] in
            guard let input else { return [] }
            return [try input.image()]
        }
        let confirmation = try await Self.run(4) { () async throws(ReceivingError) in try await dock.confirm(draft, photos: images) }
        let router = try session.router()
        let result = try await Self.run(2) { () async throws(ReceivingError) in
            try await GRNDelivery.deliver(confirmation, parts: session.parts, sync: session.file.sync, router: router,
                                          kinds: StationSchema.outboxKinds, wait: dock.settings?.confirmWait ?? ReceivingSettings.defaultConfirmWait)
        }
        let photos = confirmation.photos.map { (try? dock.photos.photo($0.sha256)) ?? $0 }
        let document = ConfirmationDocument(confirmation, outcome: result.outcome, photos: photos)
        print(document, lines: document.text)
        switch result.outcome {
        case .applied: return
        case .queued: throw ExitCode(1)
        case .conflict: throw ExitCode(5)
        case .rejected: throw ExitCode(6)
        }
    }

    private func print<T: Encodable>(_ document: T, lines: [String]) {
        if json {
            Output.stdout(Output.json(document))
        } else {
            for line in lines { Output.stdout(Output.printable(line)) }
        }
    }

    /// Runs a dock call; its error is one line on stderr and an exit status by code (see --help).
    static func run<T>(_ fallback: Int32, _ body: () async throws(ReceivingError) -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            Output.stderr("edge: " + Output.printable(error.message))
            throw ExitCode(ReceivingSession.exitStatus(error.code, fallback: fallback))
        }
    }
}
