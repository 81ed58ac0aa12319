import ArgumentParser
import Dispatch
import EdgeAgent
import EdgeCommandLine
import EdgeContract
import EdgeCore
import EdgeHTTP
import EdgePush
import EdgeReceiving
import EdgeStation
import EdgeStore
import EdgeSync
import EdgeVault
import FoundationEssentials
import Glibc

/// `edge sync run`: send what is queued now, then pull; `--watch` keeps sending until stopped.
struct SyncRunCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Send the outbox now (ending any pause), then pull the backend's changes.",
        discussion: """
        Without --watch, sends every entry that is due, prints what happened, pulls, and exits.
        With --watch, keeps sending until SIGINT or SIGTERM, like the agent does.
        If another edge process is already sending from the database, its pause is lifted and
        this command exits at once.

        Exit status:
          0   the outbox is empty (dead letters and conflicts are listed by `edge sync status`)
          1   entries remain: waiting for a retry, held, paused or stopped by a 426
          2   configuration, vault or database could not be used
        """
    )

    @OptionGroup var options: SyncOptions
    @OptionGroup var vault: VaultCommand.Location

    @Flag(name: .customLong("watch"), help: "Keep sending until SIGINT/SIGTERM.")
    var watch = false

    @Flag(name: .customLong("no-pull"), help: "Do not pull after sending.")
    var noPull = false

    func runAsync() async throws {
        let file = try options.file()
        let settings = try options.requiredSettings(file)
        let outbox = try options.openOutbox(settings)
        // With a push section, pulled notifications and confirmed GRNs feed the relay (PSH-1,
        // RCV-7) in the same transactions, routed as the agent routes them (AGT-5).
        let router = ChangeRouter()
        let pushed = Locked(PushIntakeReport())
        if let push = file.push {
            do throws(PushError) {
                let intake = PushIntake(store: try PushStore(database: outbox.database, stationZone: StationParts.stationZone(push)),
                                        receivingTeam: push.receivingTeam)
                StationParts.registerPushIntake(intake, on: router, kinds: StationSchema.outboxKinds) { report in
                    pushed.withLock { total in
                        total.notifications += report.notifications
                        total.badgeEvents += report.badgeEvents
                        total.refused += report.refused
                    }
                }
            } catch {
                Output.stderr("edge: push.station_zone: \(error.message)")
                throw ExitCode(2)
            }
        }
        // A dock's routes too (AGT-5): a GRN this sends marks its ledger record applied and a
        // pulled order change refreshes the offline cache, as when the agent sends them (a
        // station upgraded or restored and drained by hand showed its GRN queued for ever).
        // The dock is built offline: its routes need only its tables.
        if file.station.station.role != .clinic {
            var paths = StationPaths.resolve(file.station)
            paths.database = outbox.database.path
            do {
                ReceivingRoutes.register(on: router, dock: try ReceivingParts.build(configuration: file.station, outbox: outbox, paths: paths, vault: nil).dock)
            } catch {
                Output.stderr("edge: \(error.message)")
                throw ExitCode(2)
            }
        }
        let state = SyncState(database: outbox.database)
        let lock: SenderLock
        do {
            lock = try SenderLock(databasePath: outbox.database.path)
        } catch where error.code == .senderBusy {
            do {
                try state.resume(now: Date().timeIntervalSince1970)
            } catch {
                Output.stderr("edge: another edge process is sending from \(outbox.database.path), and its pause could not be lifted: \(error.message)")
                throw ExitCode(2)
            }
            Output.stdout("another edge process is sending from \(outbox.database.path); any pause was lifted so it sends now")
            return
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        let vault = StationVault(try self.vault.open())
        let deviceID = try VaultCommand.run { () throws(VaultError) in try vault.deviceID() }
        let identity = StationParts.identity(deviceID: deviceID, push: file.push)
        let transport: CurlTransport
        do {
            transport = try StationParts.syncTransport(settings)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        defer { transport.shutdown() }
        let tokens = VaultTokenProvider(vault: vault, stationSecret: settings.tokenSecret)
        let sender = StationParts.sender(outbox: outbox, transport: transport, tokens: tokens, settings: settings, identity: identity, router: router,
                                         kinds: StationSchema.outboxKinds)

        if watch {
            try await Self.untilSignalled { await sender.run() }
            withExtendedLifetime(lock) {}
            return
        }
        // Progress every 50 settled entries: a long backlog shows it is moving; a short one prints only the summary.
        let report = await sender.drain(manual: true) { progress in
            let settled = progress.sent + progress.retried + progress.conflicts + progress.deadLettered + progress.held
            if settled / 50 != Self.lastProgressBucket.withLock({ bucket in defer { bucket = settled / 50 }; return bucket }) {
                Output.stdout("... \(settled) entries handled so far")
            }
        }
        Output.stdout(Self.summary(report))
        if case .storeFailed = report.outcome {
            // The database failing is not "entries remain": the operator must look at it.
            throw ExitCode(2)
        }
        if !noPull, case .idle = report.outcome {
            do throws(SyncError) {
                let pulled = try await StationParts.pull(outbox: outbox, transport: transport, tokens: tokens, settings: settings,
                                                         identity: identity, router: router)
                Output.stdout("pulled \(pulled.changes) changes in \(pulled.pages) pages")
                let push = pushed.withLock { $0 }
                if file.push != nil, push != PushIntakeReport() {
                    Output.stdout("push: \(push.notifications) notifications recorded, \(push.badgeEvents) badge events")
                    for refusal in push.refused { Output.stderr("edge: pulled change refused by the push relay: \(Output.printable(refusal))") }
                }
            } catch {
                Output.stderr("edge: pull failed: \(error.message)")
            }
        }
        withExtendedLifetime(lock) {}
        let remaining = (try? outbox.status().depth) ?? 0
        if remaining > 0 {
            Output.stdout("\(remaining) entries remain; `edge sync status` says why")
            throw ExitCode(1)
        }
    }

    private static let lastProgressBucket = Locked(0)

    static func summary(_ report: DrainReport) -> String {
        var line = "sent \(report.sent)" + (report.duplicates > 0 ? " (\(report.duplicates) already applied)" : "")
            + ", retrying \(report.retried), conflicts \(report.conflicts), dead letters \(report.deadLettered), held \(report.held)"
        switch report.outcome {
        case .idle: break
        case .paused(let reason): line += "; PAUSED: \(Output.printable(reason))"
        case .upgradeRequired(let message): line += "; STOPPED, update edge: \(Output.printable(message))"
        case .storeFailed(let message): line += "; database failed: \(Output.printable(message))"
        case .cancelled: line += "; cancelled"
        }
        return line
    }

    /// Runs `body` until it returns or SIGINT/SIGTERM arrives, which cancels it.
    static func untilSignalled(_ body: @escaping @Sendable () async -> Void) async throws {
        let task = Task { await body() }
        let signals = TerminationSignals { task.cancel() }
        await task.value
        signals.cancel()
    }
}
