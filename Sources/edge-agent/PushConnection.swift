import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeFCM
import EdgePush

/// The relay's way out for `edge push send|run`, built by the agent's own builder
/// (`StationParts.pushRelay`) from the vault the command names.
enum PushConnection {
    /// Fails with one line on stderr and exit status 2 when the push section, the vault secret
    /// or the key is missing or bad.
    static func open(_ file: ConfigFile, store: PushStore, vault location: VaultCommand.Location) throws -> PushRelayParts {
        guard let settings = file.push else {
            Output.stderr("edge: no push section in the configuration: set push.endpoint in edge.json (see models/edge-config.schema.json)")
            throw ExitCode(2)
        }
        do {
            return try StationParts.pushRelay(settings: settings, store: store, vault: StationVault(try location.open()))
        } catch let error as AgentPartError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
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
