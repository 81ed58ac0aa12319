import EdgeCore
import EdgeCrypto
import EdgeVault
import Glibc

/// The agent's one vault, shared by every part that needs a secret (the sender's tokens, the
/// push relay's service account, the scan events' hash key).
///
/// `Vault` caches derived keys and is not thread-safe, so every access goes through one lock;
/// hence `@unchecked Sendable`: the vault is reached only inside `withVault`.
public final class StationVault: @unchecked Sendable {
    /// The secret holding the key of the station's keyed hashes (scan payloads, token
    /// fingerprints): 32 random bytes made on first use, never leaving the vault.
    public static let hashKeyName = "station.hash-key"

    private let lock = Locked(())
    private let vault: Vault
    /// What `auto` resolved to and why, for status (AGT-7).
    public let backend: String
    public let backendReason: String
    public let directory: String
    /// Why a present TPM was not used, when that happened (item 8: never a silent downgrade).
    public let tpmRefusal: String?
    /// Where the key generations live, and the older places this open moved them from (the
    /// opener logs the move).
    public let keyDirectory: String
    public let movedKeys: [String]

    /// The station's vault as edge.json and the environment name it: the backend
    /// (`station.vault_backend`), the TPM's TCTI (`station.tcti`, `EDGE_TCTI`, else the kernel's
    /// resource manager) and the directories `paths` resolved. The one opener of the agent, the
    /// capabilities and the commands that open the station's vault.
    public static func open(_ configuration: StationConfiguration, paths: StationPaths,
                            environment: [String: String]) throws(VaultError) -> StationVault {
        // tpm2-tss logs to stderr by default; the vault reports its failures itself, in one line.
        // An operator's own TSS2_LOG setting wins.
        setenv("TSS2_LOG", "all+NONE", 0)
        let choice = VaultBackendChoice(rawValue: configuration.station.vaultBackend) ?? .auto
        let tcti = configuration.station.tcti ?? environment["EDGE_TCTI"] ?? "device:/dev/tpmrm0"
        return StationVault(try Vault(directory: paths.vaultDirectory, keyDirectory: paths.vaultKeyDirectory, backend: choice, tcti: tcti,
                                      legacyKeyDirectories: paths.legacyVaultKeyDirectory.map { [$0] } ?? []))
    }

    public init(_ vault: Vault) {
        backend = vault.backend.description
        backendReason = vault.backendReason
        directory = vault.directory
        tpmRefusal = vault.tpmRefusal
        keyDirectory = vault.keyDirectory
        movedKeys = vault.movedKeys
        self.vault = vault
    }

    public func withVault<T, E: Error>(_ body: (Vault) throws(E) -> T) throws(E) -> T {
        try lock.withLock { _ throws(E) -> T in try body(vault) }
    }

    /// The secret, or nil when it is not there.
    public func secret(_ name: String) throws(VaultError) -> SecureBytes? {
        let secretName = try SecretName(name)
        return try withVault { vault throws(VaultError) -> SecureBytes? in
            do throws(VaultError) {
                return try vault.get(secretName)
            } catch where error.code == .notFound {
                return nil
            }
        }
    }

    public func deviceID() throws(VaultError) -> String {
        try withVault { vault throws(VaultError) in try vault.deviceID() }
    }

    /// The hash key, made and stored on first use.
    public func hashKey() throws(VaultError) -> SecureBytes {
        let name = try SecretName(Self.hashKeyName)
        return try withVault { vault throws(VaultError) -> SecureBytes in
            do throws(VaultError) {
                return try vault.get(name)
            } catch where error.code == .notFound {
                let key: SecureBytes
                do throws(CryptoError) {
                    key = try Random.secureBytes(32)
                } catch {
                    throw VaultError(.crypto, "No random bytes for the station's hash key: \(error.message)")
                }
                try vault.put(key, name: name)
                return key
            }
        }
    }
}
