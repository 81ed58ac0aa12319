import EdgeCrypto
import EdgeHTTP
import EdgeSync
import EdgeVault

/// Bearer tokens from the vault (SYN-6, ENR-9): the station's under `stationSecret`, an
/// enrollment's under its credential name (which is its vault secret name). A secret that is not
/// there yields nil, which holds the entries instead of sending them without a token.
public final class VaultTokenProvider: TokenProvider {
    private let vault: StationVault
    public let stationSecret: String

    public init(vault: StationVault, stationSecret: String) {
        self.vault = vault
        self.stationSecret = stationSecret
    }

    public func token(for credential: String?) async throws -> BearerToken? {
        guard let secret = try vault.secret(credential ?? stationSecret) else { return nil }
        return secret.withUnsafeBytes { BearerToken(String(decoding: $0, as: UTF8.self)) }
    }

    /// A keyed hash of the current token (AGT-6): a held credential is released when this
    /// changes, i.e. when the vault has received a new token for it. The token itself never
    /// reaches the database.
    public func fingerprint(for credential: String?) async throws -> String? {
        guard let secret = try vault.secret(credential ?? stationSecret) else { return nil }
        let key = try vault.hashKey()
        let digest = secret.withUnsafeBytes { SHA256.hash(Array($0)) }
        return KeyedHash.hex(key: key, salt: "edge token fingerprint", digest: digest)
    }
}
