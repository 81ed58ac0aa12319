import EdgeAgent
import EdgeHTTP
import EdgeStore
import EdgeSync
import EdgeVault
import Glibc
import Logging

extension Enrollments {
    /// The enrollments of the station `configuration` describes, opened from the same files `edge
    /// run` uses (StationPaths): what `edge enroll` and `edge enrollments` work on.
    /// `migrations`: the station's (`StationSchema.migrations`, which `edge enroll` passes); the
    /// default is enrollment's own, for a process that links nothing else.
    public static func open(_ configuration: StationConfiguration, environment: [String: String], logger: Logger,
                            migrations: [SchemaMigration] = EnrollmentSchema.migrations) throws(EnrollmentError) -> Enrollments {
        let settings: EnrollmentSettings
        do {
            settings = try configuration.section("enrollment", as: EnrollmentSettings.self) ?? EnrollmentSettings()
        } catch {
            throw EnrollmentError(.notConfigured, error.message)
        }
        let paths = StationPaths.resolve(configuration, environment: environment)
        let outbox: Outbox
        do {
            try paths.createStateDirectory()
            outbox = Outbox(database: try EdgeDatabase(path: paths.database, migrations: migrations), limits: configuration.sync?.limits ?? .standard)
        } catch {
            throw EnrollmentError(.store, "The station database cannot be opened: \(error)")
        }
        let vault: StationVault
        do {
            vault = try StationVault.open(configuration, paths: paths, environment: environment)
        } catch {
            throw EnrollmentError(.vault, "The vault cannot be opened: \(error.message)")
        }
        for old in vault.movedKeys {
            logger.notice("vault keys moved to the key directory", metadata: ["event": "vault.keys_moved", "from": "\(old)", "to": "\(vault.keyDirectory)"])
        }
        // The same zone resolver as sync's and push's: X-Timezone agrees on every request.
        let identity = StationParts.identity(deviceID: try Self.deviceID(vault), push: configuration.push)
        let transport = try PortalClient.transport(settings)
        return Enrollments(outbox: outbox, vault: vault, portal: PortalClient(transport: transport, identity: identity, settings: settings),
                           sponsors: configuration.payloads?.sponsors ?? .empty, logger: logger)
    }

    private static func deviceID(_ vault: StationVault) throws(EnrollmentError) -> String {
        do {
            return try vault.deviceID()
        } catch {
            throw EnrollmentError(.vault, "The vault could not give the device id: \(error.message)")
        }
    }
}
