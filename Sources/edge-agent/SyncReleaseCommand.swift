import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeStore
import EdgeSync
import EdgeVault

/// `edge sync release CREDENTIAL`: sends a held credential's entries again (AGT-6, SYN-7).
///
/// Decision (issue #28 item 2): only a hold whose kind allows it (`HoldKind.operatorMayRelease`,
/// a credential the backend rejected) is released, and only once the vault has a token for it:
/// released without one, its entries would only wait again, now looking healthy. A capability's
/// own hold is refused whatever the vault holds: a Study Start wait ends with the approval
/// (ENR-13: "No operator command releases that data early"), a revoked enrollment's with a
/// re-enrollment (ENR-14).
struct SyncReleaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "release",
        abstract: "Release a held credential: its queued entries are sent again.",
        discussion: """
        A credential is held when the backend rejected its token (401/403). The agent releases it
        by itself once the vault holds a new token for it; this releases it by hand (`station`
        is the station's own token) once the vault has a token for it. Holds that wait for
        something else (an enrollment's Study Start approval, a re-enrollment) are not released
        by hand: `edge sync status` shows what they wait for.

        Exit status:
          0   released
          1   it was not held
          2   configuration, vault or database could not be used
          3   refused: the hold is not an operator's to release, or the vault has no token for
              the credential; nothing was released
        """
    )

    @OptionGroup var options: SyncOptions
    @OptionGroup var vault: VaultCommand.Location

    @Argument(help: ArgumentHelp("The held credential, as `edge sync status` lists it.", valueName: "CREDENTIAL"))
    var credential: String

    func run() throws {
        let settings = try options.settings()
        let outbox = try options.openOutbox(settings)
        let state = SyncState(database: outbox.database)
        let shown = Output.printable(credential)
        let hold: CredentialHold?
        do {
            hold = try state.hold(of: credential)
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        guard let hold else {
            Output.stdout("\(shown) was not held")
            throw ExitCode(1)
        }
        guard hold.kind.operatorMayRelease else {
            Output.stderr("edge: \(shown) is not released by hand: its entries are waiting for \(Output.printable(hold.kind.waitingFor)) "
                          + "(\(Output.printable(hold.kind.name)): \(Output.printable(hold.reason))), and only that sends them. Nothing was released.")
            throw ExitCode(3)
        }
        let secret = credential == Outbox.stationCredential ? (settings?.tokenSecret ?? SyncSettings.defaultTokenSecret) : credential
        guard try vaultHasToken(secret) else {
            Output.stderr("edge: the vault has no token for \(shown) (secret \(Output.printable(secret))): released now, its entries would only wait again. "
                          + "Put a new token with `edge vault put \(Output.printable(secret))`, then release it. Nothing was released.")
            throw ExitCode(3)
        }
        do {
            guard try state.releaseIfOperatorMay(credential: credential) != nil else {
                // Ended or rewritten by its owner since it was read.
                Output.stderr("edge: \(shown) changed while it was being released; see `edge sync status`. Nothing was released.")
                throw ExitCode(3)
            }
        } catch let error as StoreError {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
        Output.stdout("released \(shown); its entries are sent at the next pass")
    }

    /// Whether the vault can give a token under `secret`; a vault that cannot be opened or read
    /// is exit status 2 (the operator must look at it), not a refusal.
    private func vaultHasToken(_ secret: String) throws -> Bool {
        let opened: Vault
        do {
            opened = try vault.open()
        } catch is ExitCode {
            // `open` has printed why.
            throw ExitCode(2)
        }
        do {
            return try StationVault(opened).secret(secret) != nil
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(2)
        }
    }
}
