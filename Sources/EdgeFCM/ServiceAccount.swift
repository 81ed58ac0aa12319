import EdgeContract
import EdgeCrypto
import FoundationEssentials

/// A Google service account as its JSON key file describes it (PSH-8). The private key is held
/// as SecureBytes and loaded once, so a bad key fails when configured, not at the first push.
///
/// The description names the account and project only.
public struct ServiceAccount: Sendable, CustomStringConvertible {
    public let type: String
    public let projectID: String
    public let clientEmail: String
    public let tokenURI: String
    /// The PEM of `private_key`.
    public let privateKeyPEM: SecureBytes
    public let privateKey: RSAPrivateKey

    /// Parses the key file. Throws `.invalidServiceAccount` when it is not JSON, `type` is not
    /// `service_account`, a field is missing or empty, or the key is not an RSA PKCS#8 PEM.
    ///
    /// Decision: the JSON decoder necessarily makes a String of `private_key` on the way; it is
    /// dropped at once and only the SecureBytes copy is kept.
    public init(json: [UInt8]) throws(FCMError) {
        let document: JSONValue
        do {
            document = try ContractCoding.decode(JSONValue.self, from: json)
        } catch {
            throw FCMError(.invalidServiceAccount, "The service-account key file is not JSON.")
        }
        func field(_ name: String) throws(FCMError) -> String {
            guard let value = document[name]?.stringValue, !value.isEmpty else {
                throw FCMError(.invalidServiceAccount, "The service-account key file has no \(name).", context: ["field": name])
            }
            return value
        }
        type = try field("type")
        guard type == "service_account" else {
            throw FCMError(.invalidServiceAccount, "The key file is not a service account's.", context: ["type": type])
        }
        projectID = try field("project_id")
        clientEmail = try field("client_email")
        tokenURI = try field("token_uri")
        privateKeyPEM = SecureBytes(Array(try field("private_key").utf8))
        do {
            privateKey = try RSAPrivateKey(pem: privateKeyPEM)
        } catch {
            throw FCMError(.invalidServiceAccount, "The service account's private key does not load.",
                           context: ["crypto": error.code.rawValue, "account": clientEmail])
        }
    }

    public var description: String { "ServiceAccount(\(clientEmail), project \(projectID))" }
}
