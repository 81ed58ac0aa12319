import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgePush
import EdgeReceiving
import EdgeStation
import EdgeStore
import FoundationEssentials

/// What `edge receive` and `edge lookup` open: the configuration, the database, the vault when it
/// can be opened (without it the dock is offline and says why), and the dock's parts.
struct ReceivingSession {
    let file: ConfigFile
    let parts: ReceivingParts

    static func open(options: SyncOptions, vault location: VaultCommand.Location) throws -> ReceivingSession {
        let file = try options.file()
        let outbox = try options.openOutbox(file.sync)
        var paths = StationPaths.resolve(file.station)
        paths.database = outbox.database.path
        let vault = try? StationVault(location.open())
        do {
            return ReceivingSession(file: file, parts: try ReceivingParts.build(configuration: file.station, outbox: outbox, paths: paths, vault: vault))
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }

    /// The router a GRN sent from here settles through: with a push section, the confirmed GRN
    /// raises DELIVERY_UPDATE in the same transaction, as in the agent (RCV-7, AGT-5).
    func router() throws -> ChangeRouter {
        let router = ChangeRouter()
        guard let push = file.push else { return router }
        do throws(PushError) {
            let store = try PushStore(database: parts.dock.outbox.database, stationZone: StationParts.stationZone(push))
            StationParts.registerPushIntake(PushIntake(store: store, receivingTeam: push.receivingTeam), on: router,
                                            kinds: StationSchema.outboxKinds)
        } catch {
            Output.stderr("edge: push.station_zone: \(error.message)")
            throw ExitCode(2)
        }
        return router
    }

    func close() { parts.close() }

    /// The exit statuses of `edge receive` and `edge lookup` (their --help lists them).
    static func exitStatus(_ code: ReceivingErrorCode, fallback: Int32, offline: Int32 = 3) -> Int32 {
        switch code {
        case .notFound: 3
        case .notAvailableOffline: offline
        case .invalidInput, .invalidQuantity, .photoFailed, .badCheckDigit, .wrongTenant, .notOnOrder, .receiptChanged, .alreadyCounted: 4
        case .notConfigured, .storeFailed, .unauthorized: 2
        case .invalidAnswer: fallback
        }
    }
}
