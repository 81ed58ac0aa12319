import ArgumentParser
import EdgeCrypto
import EdgeFCM
import EdgePush
import EdgeSync
import EdgeVault

/// The relay's way out: the service account from the vault (PSH-8), a libcurl transport (HTTP/2
/// over TLS, multiplexed) and the FCM client, sender and relay loop.
struct PushConnection {
    let transport: CurlTransport
    let sender: PushSender
    let relay: PushRelay
    let projectID: String

    /// Fails with one line on stderr and exit status 2 when the push section, the vault secret
    /// or the key is missing or bad.
    static func open(_ file: ConfigFile, store: PushStore, vault location: VaultCommand.Location) throws -> PushConnection {
        guard let settings = file.push else {
            Output.stderr("edge: no push section in the configuration: set push.endpoint in edge.json (see models/edge-config.schema.json)")
            throw ExitCode(2)
        }
        let vault = try location.open()
        let account = try VaultCommand.run { () throws(VaultError) -> SecureBytes in try vault.get(SecretName(settings.serviceAccountSecret)) }
        let serviceAccount: ServiceAccount
        do {
            serviceAccount = try account.withUnsafeBytes { bytes throws(FCMError) in try ServiceAccount(json: Array(bytes)) }
        } catch {
            Output.stderr("edge: vault secret \(settings.serviceAccountSecret): \(error.message)")
            throw ExitCode(2)
        }
        let options = TransportOptions(connectTimeout: 10, totalTimeout: settings.requestTimeout, caFile: settings.caFile,
                                       userAgent: "edge/" + EdgeVersion.current)
        let transport: CurlTransport
        do {
            transport = try CurlTransport(options: options)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        let tokens = OAuthTokenSource(account: serviceAccount, transport: transport)
        let client = FCMClient(configuration: FCMClientConfiguration(endpoint: settings.endpoint), transport: transport, tokens: tokens)
        let projectID = settings.projectID ?? serviceAccount.projectID
        let sender = PushSender(store: store, client: client, projectID: projectID, maxInFlight: settings.maxInFlight)
        return PushConnection(transport: transport, sender: sender, relay: PushRelay(store: store, sender: sender), projectID: projectID)
    }

    /// One line for a pass's report.
    static func summary(_ report: PushSendReport) -> String {
        var line = "sent \(report.sent), failed \(report.failed), waiting to retry \(report.deferred)"
        if !report.deferredReasons.isEmpty {
            line += " (" + report.deferredReasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        line += ", device tokens retired \(report.prunedTokens)"
        if let error = report.authenticationError { line += "; NOT AUTHENTICATED: \(Output.printable(error))" }
        return line
    }
}
