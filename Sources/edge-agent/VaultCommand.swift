import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeCrypto
import EdgeVault
import FoundationEssentials
import Glibc

/// `edge vault ...`: the token vault from the command line (vault.md). Values go in through
/// stdin and out through stdout only: never argv, never logs (VLT-7).
struct VaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vault",
        abstract: "Keep named secrets sealed on this station.",
        discussion: """
        Backends (--backend): keyfile (a 32-byte host key in the key directory, mode 0400), tpm2
        (a data key sealed by the TPM), keyfile+tpm2 (both needed), auto (keyfile+tpm2 when the
        TPM at --tcti answers, else keyfile; the default). Secrets are AES-256-GCM envelopes bound
        to this device and their name; each records the backend that sealed it. Key generations
        live outside the vault directory (--key-dir; the station's are beside its state directory,
        <state>-keys, so a backup of the state directory takes none), so `erase` and `wipe` leave
        a copy of the vault or state directory unable to open what they destroyed. Several edge processes may use one
        vault at once: every operation holds the vault's lock.
        """,
        subcommands: [Status.self, Put.self, Get.self, Remove.self, Erase.self, Rotate.self, Wipe.self]
    )

    struct Location: ParsableArguments {
        @Option(name: .customLong("dir"), help: ArgumentHelp("Vault directory (default: $EDGE_VAULT_DIR, then the state directory's vault/, as for `edge run`).", valueName: "DIR"))
        var dir: String?

        @Option(name: .customLong("key-dir"), help: ArgumentHelp("Key directory, outside the vault directory (default: $EDGE_VAULT_KEY_DIR, then <DIR>-keys with --dir, else <state>-keys beside the state directory, as for `edge run`).", valueName: "DIR"))
        var keyDir: String?

        @Option(name: .customLong("backend"), help: ArgumentHelp("keyfile, tpm2, keyfile+tpm2 or auto.", valueName: "NAME"))
        var backend: String = "auto"

        @Option(name: .customLong("tcti"), help: ArgumentHelp("How to reach the TPM (default: $EDGE_TCTI, then device:/dev/tpmrm0).", valueName: "TCTI"))
        var tcti: String?

        @Option(name: .customLong("pcrs"), help: ArgumentHelp("Comma list of SHA-256 PCRs new TPM keys are bound to.", valueName: "LIST"))
        var pcrs: String?

        func validate() throws {
            guard VaultBackendChoice(rawValue: backend) != nil else {
                throw ValidationError("--backend must be one of \(VaultBackendChoice.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let pcrs, pcrs.split(separator: ",").contains(where: { Int($0).map { !(0...23).contains($0) } ?? true }) {
                throw ValidationError("--pcrs takes PCR numbers 0-23, comma separated")
            }
        }

        func open() throws -> Vault {
            let env = ProcessInfo.processInfo.environment
            // The station's vault is where `edge run` looks: its edge.json ($EDGE_CONFIG, else
            // /etc/edge/edge.json) may name state_dir, vault_dir and vault_key_dir (the packaged
            // one names /var/lib/edge, so `sudo -u edge edge vault put` reaches the service's vault
            // and not ~edge/.local/state). A vault named with --dir needs no configuration.
            let station = dir == nil ? try ConfigFile.loadForCommand(explicitPath: nil).station : StationConfiguration()
            let paths = StationPaths.resolve(station)
            if dir == nil {
                // The default vault lives in the state directory, which `edge run` would create;
                // provisioning a new station (`vault put`) may come first.
                try? paths.createStateDirectory()
            }
            let directory = dir ?? paths.vaultDirectory
            // With --dir, the keys sit next to that vault rather than in the station's state
            // directory, so a vault named on the command line never shares another's keys.
            let keyDirectory = keyDir ?? env["EDGE_VAULT_KEY_DIR"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (dir.map { Vault.defaultKeyDirectory(for: $0) } ?? paths.vaultKeyDirectory)
            let tcti = tcti ?? env["EDGE_TCTI"].flatMap { $0.isEmpty ? nil : $0 } ?? "device:/dev/tpmrm0"
            // tpm2-tss logs its own errors to stderr unless told otherwise; edge reports TPM
            // failures itself, in one line. An operator's own TSS2_LOG setting wins.
            setenv("TSS2_LOG", "all+NONE", 0)
            let choice = VaultBackendChoice(rawValue: backend) ?? .auto
            let pcrList = pcrs.map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
            // The station's own vault moves its keys out of the old default, `<state>/vault-keys`,
            // as `edge run` does (StationPaths); a vault named with --dir has no such past.
            let legacy = dir == nil ? paths.legacyVaultKeyDirectory.map { [$0] } ?? [] : []
            let vault = try VaultCommand.run { () throws(VaultError) in
                try Vault(directory: directory, keyDirectory: keyDirectory, backend: choice, tcti: tcti, pcrs: pcrList, legacyKeyDirectories: legacy)
            }
            for old in vault.movedKeys { Output.stderr("edge: vault keys moved from \(old) to \(vault.keyDirectory)") }
            return vault
        }
    }

    /// Runs a vault operation; a vault error becomes one line on stderr and exit status 1.
    static func run<T>(_ body: () throws(VaultError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            Output.stderr("edge: \(error.message)")
            throw ExitCode(1)
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the backend, keys and secret names with their ages; never values.")
        @OptionGroup var location: Location
        @Flag(name: .customLong("json")) var json = false

        func run() throws {
            let vault = try location.open()
            let (infos, keys) = try VaultCommand.run { () throws(VaultError) in (try vault.list(), try vault.keyIDs()) }
            let now = Int64(time(nil))
            if json {
                let secrets: [[String: String]] = infos.map {
                    var d = ["name": $0.name, "backend": $0.backend.description, "key_id": $0.keyID, "age_seconds": String(now - $0.created)]
                    if let n = $0.notAfter { d["not_after"] = String(n) }
                    return d
                }
                let doc = StatusDocument(directory: vault.directory, keyDirectory: vault.keyDirectory, backend: vault.backend.description, backendReason: vault.backendReason,
                                         currentKeyID: keys.first?.id ?? "",
                                         keys: keys.map { ["id": $0.id, "backend": $0.backend.description] }, secrets: secrets)
                Output.stdout(Output.json(doc))
            } else {
                Output.stdout("vault \(vault.directory) (keys in \(vault.keyDirectory)): backend \(vault.backend) (\(vault.backendReason))")
                if let current = keys.first {
                    Output.stdout("current key \(current.id.prefix(8)) (\(current.backend))"
                        + (keys.count > 1 ? "; \(keys.count - 1) older keys still in use: run `edge vault rotate` to finish" : ""))
                    if current.backend != vault.backend {
                        Output.stdout("the current key is \(current.backend), not \(vault.backend): `edge vault rotate` moves every secret over")
                    }
                }
                for i in infos {
                    Output.stdout("  \(i.name)  key \(i.keyID.prefix(8))  age \(Self.age(now - i.created))")
                }
            }
        }

        static func age(_ s: Int64) -> String {
            s < 120 ? "\(s)s" : s < 7200 ? "\(s / 60)m" : s < 172_800 ? "\(s / 3600)h" : "\(s / 86400)d"
        }

        struct StatusDocument: Encodable {
            let directory: String, keyDirectory: String, backend: String, backendReason: String
            let currentKeyID: String
            let keys: [[String: String]]
            let secrets: [[String: String]]
            enum CodingKeys: String, CodingKey {
                case directory, backend, keys, secrets
                case keyDirectory = "key_directory"
                case backendReason = "backend_reason"
                case currentKeyID = "current_key_id"
            }
        }
    }

    struct Put: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store the value read from stdin under NAME (one trailing newline is dropped unless --raw).")
        @OptionGroup var location: Location
        @Argument(help: "Secret name: 1-64 of a-z 0-9 . _ -") var name: String
        @Flag(name: .customLong("raw"), help: "Keep stdin byte for byte.") var raw = false

        func run() throws {
            let vault = try location.open()
            var bytes = try StandardInput.readAll(max: Vault.maxSecretBytes + 1)
            if !raw, bytes.last == 0x0A { bytes.removeLast() }
            let value = SecureBytes(bytes)
            SecureWipe.wipe(&bytes)
            try VaultCommand.run { () throws(VaultError) in try vault.put(value, name: SecretName(name)) }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write the value of NAME to stdout, byte for byte.")
        @OptionGroup var location: Location
        @Argument var name: String

        func run() throws {
            let vault = try location.open()
            let value = try VaultCommand.run { () throws(VaultError) in try vault.get(SecretName(name)) }
            value.withUnsafeBytes { Output.stdoutBytes($0) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete NAME (its file is overwritten, then removed).")
        @OptionGroup var location: Location
        @Argument var name: String

        func run() throws {
            let vault = try location.open()
            try VaultCommand.run { () throws(VaultError) in try vault.remove(SecretName(name)) }
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-encrypt every secret under a new key, then destroy unused keys.")
        @OptionGroup var location: Location

        func run() throws {
            let vault = try location.open()
            let r = try VaultCommand.run { () throws(VaultError) in try vault.rotate() }
            Output.stdout("rotated to key \(r.newKeyID)\(r.resumed ? " (finishing an interrupted rotation)" : ""): \(r.rewritten) secrets rewritten, \(r.keysDestroyed) old keys destroyed")
            VaultCommand.reportDamaged(r.damaged)
        }
    }

    struct Erase: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Crypto-erase NAME...: remove them, move every other secret to a new key, destroy the old keys.",
            discussion: "An earlier copy of the vault directory cannot open the erased secrets afterwards; a copy that also holds the key directory can.")
        @OptionGroup var location: Location
        @Argument(help: "Secret names") var names: [String]

        func run() throws {
            let vault = try location.open()
            let r = try VaultCommand.run { () throws(VaultError) in try vault.erase(names.map { (n) throws(VaultError) in try SecretName(n) }) }
            Output.stdout("erased \(r.erased) secrets; \(r.rewritten) others moved to key \(r.newKeyID); \(r.keysDestroyed) old keys destroyed")
            VaultCommand.reportDamaged(r.damaged)
        }
    }

    /// Damaged envelopes named on stderr (never a value); the command still succeeded for the rest.
    static func reportDamaged(_ damaged: [DamagedSecret]) {
        for d in damaged { Output.stderr("edge: \(Output.printable(d.name)) could not be moved: \(d.error.message)") }
    }

    struct Wipe: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Crypto-erase the vault: destroy the keys, then every secret.")
        @OptionGroup var location: Location
        @Flag(name: .customLong("yes"), help: "Confirm: this cannot be undone.") var yes = false

        func validate() throws {
            if !yes { throw ValidationError("wiping destroys every secret and the device id; add --yes to confirm") }
        }

        func run() throws {
            let vault = try location.open()
            try VaultCommand.run { () throws(VaultError) in try vault.wipe() }
            Output.stdout("vault \(vault.directory) wiped")
        }
    }
}
