import EdgeCore
import EdgeCrypto
import EdgeVault
import Logging

/// The station's vault as the running agent holds it (AGT-1, issue #28 item 4). The agent opens it
/// while it is built; when that fails (a TPM not ready at boot, a key directory not mounted yet)
/// the `vault` part tries again with backoff while everything else runs, and the parts that need a
/// secret (sender, puller, push relay, enrollment, the dock's client, the kiosk's PIN) find it
/// here once it is open: they ask each time they are built, never keep a "no vault" of their own.
///
/// Decision: the vault counts as open once the station's hash key is there too (made on first
/// use): scan events recorded before that carry no payload key, and a vault that cannot keep
/// that key would not keep an enrollment's tokens either.
public final class StationVaultAccess: Sendable {
    private struct Opened: Sendable {
        let vault: StationVault
        let hashKey: SecureBytes
    }

    private let opened = Locked<Opened?>(nil)
    private let failure = Locked<String?>(nil)
    private let open: @Sendable () throws(VaultError) -> StationVault

    /// `open`: `StationVault.open` for the station's configuration (tests give their own).
    public init(open: @escaping @Sendable () throws(VaultError) -> StationVault) {
        self.open = open
    }

    /// nil until the vault opened.
    public var vault: StationVault? { opened.withLock { $0?.vault } }

    /// The key of the station's keyed hashes; nil until the vault opened.
    public var hashKey: SecureBytes? { opened.withLock { $0?.hashKey } }

    /// Why the last attempt failed, while the vault is not open.
    public var unavailableReason: String? { vault == nil ? failure.get() : nil }

    /// The vault, or the part error a part that needs it throws (and is retried with).
    public func require() throws(AgentPartError) -> StationVault {
        guard let vault else {
            throw AgentPartError(.vaultUnavailable, "the vault is not open yet (\(failure.get() ?? "see the vault part"))")
        }
        return vault
    }

    /// One attempt to open the vault and its hash key; after the first success it only returns
    /// the open vault.
    @discardableResult
    func attempt() throws(VaultError) -> StationVault {
        if let vault { return vault }
        do throws(VaultError) {
            let vault = try open()
            let key = try vault.hashKey()
            opened.withLock { $0 = $0 ?? Opened(vault: vault, hashKey: key) }
            failure.set(nil)
            return self.vault ?? vault
        } catch {
            failure.set(error.message)
            throw error
        }
    }

    /// The vault's lines of the status file (`edge status`, the kiosk's status page), as they are
    /// now: a vault that opened late shows its backend from then on.
    func describe(into file: inout AgentStatusFile) {
        let vault = self.vault
        file.vaultBackend = vault?.backend
        file.vaultReason = vault?.backendReason
        file.vaultError = unavailableReason
        file.vaultWarning = vault?.tpmRefusal
    }
}

/// The vault opened after a failed start: told on the fact stream so that what was built
/// without it (the dock's backend client) is built again.
public struct VaultOpened: StationFact {
    public let backend: String
}
