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
    public static func open(_ configuration: StationConfiguration, environment: [String: String], logger: Logger) throws(EnrollmentError) -> Enrollments {
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
            outbox = Outbox(database: try EdgeDatabase(path: paths.database), limits: configuration.sync?.limits ?? .standard)
        } catch {
            throw EnrollmentError(.store, "The station database cannot be opened: \(error)")
        }
        let vault: StationVault
        do {
            setenv("TSS2_LOG", "all+NONE", 0)
            let choice = VaultBackendChoice(rawValue: configuration.station.vaultBackend) ?? .auto
            let tcti = configuration.station.tcti ?? environment["EDGE_TCTI"] ?? "device:/dev/tpmrm0"
            vault = StationVault(try Vault(directory: paths.vaultDirectory, keyDirectory: paths.vaultKeyDirectory, backend: choice, tcti: tcti))
        } catch {
            throw EnrollmentError(.vault, "The vault cannot be opened: \(error.message)")
        }
        let identity = SyncIdentity.current(deviceID: try Self.deviceID(vault), appVersion: StationParts.appVersion)
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
