import EdgeContract
import EdgeCrypto
import FoundationEssentials
import Glibc

/// The service account the FCM stand-in trusts (`edge-standin --fcm-service-account FILE`): an
/// existing Google-format key file, or a fresh RSA-2048 key written as one, so a demo needs no
/// openssl commands. Only the stand-in trusts it; it is worth nothing anywhere else.
public struct StandinServiceAccount: Sendable {
    public static let demoProjectID = "edge-demo"
    public static let demoClientEmail = "edge-demo@edge-demo.iam.gserviceaccount.com"

    public let projectID: String
    public let clientEmail: String
    public let key: RSAPrivateKey

    /// Reads a service-account JSON key file.
    public static func load(path: String) throws(StandinError) -> StandinServiceAccount {
        func refuse(_ why: String) -> StandinError {
            StandinError(.serviceAccount, "\(path): \(why)", context: ["path": path])
        }
        guard let data = FileManager.default.contents(atPath: path), data.count < 64 * 1024 else {
            throw refuse("cannot be read (or is over 64 KB)")
        }
        guard let document = try? ContractCoding.decode(JSONValue.self, from: [UInt8](data)),
              document["type"]?.stringValue == "service_account",
              let projectID = document["project_id"]?.stringValue, let email = document["client_email"]?.stringValue,
              let pem = document["private_key"]?.stringValue else {
            throw refuse("is not a service-account key file (type, project_id, client_email, private_key)")
        }
        do {
            return StandinServiceAccount(projectID: projectID, clientEmail: email, key: try RSAPrivateKey(pem: SecureBytes(Array(pem.utf8))))
        } catch {
            throw refuse("its private key does not load: \(error.message)")
        }
    }

    /// A new demo account with a fresh key.
    public static func generate() throws(StandinError) -> StandinServiceAccount {
        do {
            return StandinServiceAccount(projectID: demoProjectID, clientEmail: demoClientEmail, key: try RSAPrivateKey.generate(bits: 2048))
        } catch {
            throw StandinError(.serviceAccount, "Could not generate a key: \(error.message)")
        }
    }

    /// The public key's PEM, for `StandinConfiguration.fcmPublicKeyPEM`.
    public func publicKeyPEM() throws(StandinError) -> [UInt8] {
        do {
            return try key.publicKeyPEM()
        } catch {
            throw StandinError(.serviceAccount, "Could not export the public key: \(error.message)")
        }
    }

    /// The account as a Google key file naming `tokenURI` as its token endpoint: what
    /// `edge vault put push.service-account` stores.
    public func keyFile(tokenURI: String) throws(StandinError) -> SecureBytes {
        let pem: SecureBytes
        do {
            pem = try key.pkcs8PEM()
        } catch {
            throw StandinError(.serviceAccount, "Could not export the key: \(error.message)")
        }
        let privateKey = pem.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        let document = JSONValue.object([
            "type": .string("service_account"), "project_id": .string(projectID), "private_key_id": .string("edge-standin"),
            "private_key": .string(privateKey), "client_email": .string(clientEmail), "client_id": .string("0"),
            "auth_uri": .string(tokenURI), "token_uri": .string(tokenURI),
        ])
        guard var bytes = try? ContractCoding.encode(document) else {
            throw StandinError(.serviceAccount, "Could not encode the service account")
        }
        defer { for index in bytes.indices { bytes[index] = 0 } }
        return SecureBytes(bytes)
    }

    /// Writes the account as a Google key file to `path`, created exclusively with mode 0600
    /// (an existing file is never overwritten), naming `tokenURI` as its token endpoint.
    public func write(to path: String, tokenURI: String) throws(StandinError) {
        let bytes = try keyFile(tokenURI: tokenURI)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StandinError(.serviceAccount, "\(path): cannot be created (errno \(errno))", context: ["path": path])
        }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw StandinError(.serviceAccount, "\(path): write failed (errno \(errno))", context: ["path": path]) }
            offset += n
        }
        guard fsync(fd) == 0 else { throw StandinError(.serviceAccount, "\(path): fsync failed (errno \(errno))", context: ["path": path]) }
    }
}
