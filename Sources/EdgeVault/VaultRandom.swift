import EdgeCrypto

/// The CSPRNG in vault terms: one place that turns a generator failure into a `VaultError`.
enum VaultRandom {
    static func bytes(_ n: Int) throws(VaultError) -> [UInt8] {
        do { return try Random.bytes(n) } catch { throw failure(error) }
    }

    static func secret(_ n: Int) throws(VaultError) -> SecureBytes {
        do { return try Random.secureBytes(n) } catch { throw failure(error) }
    }

    private static func failure(_ error: CryptoError) -> VaultError {
        VaultError(.crypto, "the system random generator failed: \(error.message)")
    }
}
