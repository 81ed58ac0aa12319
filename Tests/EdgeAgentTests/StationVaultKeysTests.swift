@testable import EdgeAgent
import EdgeCore
import EdgeCrypto
import EdgeTestSupport
import EdgeVault
import Foundation
import Glibc
import Testing

/// Where the station keeps its vault keys (VLT-6, ENR-10): beside the state directory, never in
/// it, so a backup of the state directory holds none; and how a station upgraded from the old
/// default (`<state>/vault-keys`) keeps its vault.
@Suite struct StationVaultKeysTests {
    @Test func theKeysLiveBesideTheStateDirectory() throws {
        let systemd = StationPaths.resolve(StationConfiguration(), environment: ["STATE_DIRECTORY": "/var/lib/edge"])
        #expect(systemd.vaultKeyDirectory == "/var/lib/edge-keys")
        #expect(systemd.legacyVaultKeyDirectory == "/var/lib/edge/vault-keys")
        var configuration = try StationConfiguration.parse(Data(#"{"station": {"state_dir": "."}}"#.utf8))
        configuration.path = "/srv/edge/edge.json"
        #expect(StationPaths.resolve(configuration, environment: [:]).vaultKeyDirectory == "/srv/edge-keys", "the state directory's cleaned path")
        #expect(StationPaths.resolve(StationConfiguration(), environment: ["EDGE_STATE_DIR": "/tmp/s/"]).vaultKeyDirectory == "/tmp/s-keys")
        if getuid() != 0 {
            #expect(StationPaths.resolve(StationConfiguration(), environment: ["HOME": "/home/a"]).vaultKeyDirectory == "/home/a/.local/state/edge-keys")
        }
        // Explicit: the key (relative to the file) or the environment; the old default is still
        // where keys are looked for, unless it is the key directory itself.
        var explicit = try StationConfiguration.parse(Data(#"{"station": {"state_dir": "state", "vault_key_dir": "keys"}}"#.utf8))
        explicit.path = "/etc/edge/edge.json"
        let paths = StationPaths.resolve(explicit, environment: [:])
        #expect(paths.vaultKeyDirectory == "/etc/edge/keys" && paths.legacyVaultKeyDirectory == "/etc/edge/state/vault-keys")
        #expect(StationPaths.resolve(explicit, environment: ["EDGE_VAULT_KEY_DIR": "/run/k"]).vaultKeyDirectory == "/run/k")
        var inside = try StationConfiguration.parse(Data(#"{"station": {"state_dir": "/srv/s", "vault_key_dir": "/srv/s/./vault-keys"}}"#.utf8))
        inside.path = "/etc/edge/edge.json"
        #expect(StationPaths.resolve(inside, environment: [:]).legacyVaultKeyDirectory == nil)
    }

    /// A station upgraded with its keys in `<state>/vault-keys`: the first open moves them beside
    /// the state directory (and says so), every secret still opens, and later opens move nothing.
    @Test func keysInTheOldPlaceMoveOnceAndTheVaultKeepsWorking() throws {
        let root = try TemporaryDirectory(prefix: "edge-keys-move")
        let state = root.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let old = try Vault(directory: state + "/vault", keyDirectory: state + "/vault-keys", backend: .keyfile)
        try old.put(SecureBytes(Array("token-value-sync".utf8)), name: SecretName("sync.token"))
        let deviceID = try old.deviceID()

        let (configuration, paths) = try Self.station(state: state)
        let vault = try StationVault.open(configuration, paths: paths, environment: [:])
        #expect(vault.keyDirectory == root.path + "/state-keys")
        #expect(vault.movedKeys == [state + "/vault-keys"])
        #expect(Self.text(try vault.secret("sync.token")) == "token-value-sync")
        #expect(try vault.deviceID() == deviceID)
        #expect(!FileManager.default.fileExists(atPath: state + "/vault-keys"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path + "/state-keys").contains("current"))

        let again = try StationVault.open(configuration, paths: paths, environment: [:])
        #expect(again.movedKeys == [])
        #expect(Self.text(try again.secret("sync.token")) == "token-value-sync")
    }

    /// Several openers at the same moment (the agent's services, `edge vault`): the vault lock
    /// serialises the move, so exactly one moves the keys and every one opens the secret.
    @Test func openersAtTheSameMomentMoveTheKeysOnce() async throws {
        let root = try TemporaryDirectory(prefix: "edge-keys-race")
        let state = root.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let old = try Vault(directory: state + "/vault", keyDirectory: state + "/vault-keys", backend: .keyfile)
        try old.put(SecureBytes(Array("token-value-race".utf8)), name: SecretName("sync.token"))
        let (configuration, paths) = try Self.station(state: state)

        let results = await withTaskGroup(of: Result<(moved: Int, value: String?), VaultError>.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do throws(VaultError) {
                        let vault = try StationVault.open(configuration, paths: paths, environment: [:])
                        return .success((vault.movedKeys.count, Self.text(try vault.secret("sync.token"))))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            var all: [Result<(moved: Int, value: String?), VaultError>] = []
            for await result in group { all.append(result) }
            return all
        }
        let opened = try results.map { try $0.get() }
        #expect(opened.count == 8)
        #expect(opened.map(\.moved).reduce(0, +) == 1)
        #expect(opened.allSatisfy { $0.value == "token-value-race" })
        #expect(!FileManager.default.fileExists(atPath: state + "/vault-keys"))
    }

    private static func station(state: String) throws -> (StationConfiguration, StationPaths) {
        let configuration = try StationConfiguration.parse(Data(#"{"station": {"state_dir": "\#(state)", "vault_backend": "keyfile"}}"#.utf8))
        return (configuration, StationPaths.resolve(configuration, environment: [:]))
    }

    private static func text(_ bytes: SecureBytes?) -> String? {
        bytes.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) }
    }
}
