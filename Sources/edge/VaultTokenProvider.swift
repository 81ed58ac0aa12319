import EdgeCrypto
import EdgeSync
import EdgeVault
import Synchronization

/// Bearer tokens from the vault (SYN-6, ENR-9): the station's under `stationSecret`, an
/// enrollment's under its credential name (which is its vault secret name). A secret that is not
/// there yields nil, which holds the entries instead of sending them without a token.
///
/// The vault caches derived keys and is not thread-safe; the sender asks from concurrent tasks,
/// so every access goes through one lock.
final class VaultTokenProvider: TokenProvider {
    private let vault: Mutex<Vault>
    let stationSecret: String

    init(vault: consuming sending Vault, stationSecret: String) {
        self.vault = Mutex(vault)
        self.stationSecret = stationSecret
    }

    func token(for credential: String?) async throws -> BearerToken? {
        let name = try SecretName(credential ?? stationSecret)
        return try vault.withLock { vault throws(VaultError) -> BearerToken? in try Self.read(name, from: vault) }
    }

    private static func read(_ name: SecretName, from vault: Vault) throws(VaultError) -> BearerToken? {
        let secret: SecureBytes
        do {
            secret = try vault.get(name)
        } catch {
            if error.code == .notFound { return nil }
            throw error
        }
        return secret.withUnsafeBytes { BearerToken(String(decoding: $0, as: UTF8.self)) }
    }
}
