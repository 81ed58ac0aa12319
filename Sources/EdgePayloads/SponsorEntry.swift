import EdgeCore
import FoundationEssentials

/// One row of the sponsor pattern table (ENR-4): prefix -> sponsor id and backend URL.
///
/// Backend URLs are masked (they name neither sponsor nor site), so nothing is derived from them;
/// they are only checked to be safe to POST a linking code to.
public struct SponsorEntry: Sendable, Hashable, Decodable {
    public let prefix: String
    public let sponsorID: String
    public let backendURL: URL

    /// Longest sponsor id accepted; ids are short identifiers, not text.
    static let maxSponsorIDLength = 128

    public init(prefix: String, sponsorID: String, backendURL: String) throws(PayloadConfigError) {
        self.prefix = try Self.checkPrefix(prefix)
        self.sponsorID = try Self.checkSponsorID(sponsorID)
        self.backendURL = try Self.checkURL(backendURL)
    }

    private enum Keys: String, CodingKey, CaseIterable {
        case prefix
        case sponsorID = "sponsor_id"
        case backendURL = "backend_url"
    }

    /// The keys of one `sponsors[]` entry (unknown ones are refused by the station's loader).
    public static let configurationKeys = ConfigurationKeys.object(Keys.self)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let prefix = try container.decode(String.self, forKey: .prefix)
        let sponsorID = try container.decode(String.self, forKey: .sponsorID)
        let url = try container.decode(String.self, forKey: .backendURL)
        do {
            try self.init(prefix: prefix, sponsorID: sponsorID, backendURL: url)
        } catch {
            throw error.located(at: decoder.codingPath)
        }
    }

    /// Exactly two characters of the linking-code alphabet, upper-case. Lower case is refused rather
    /// than fixed: the table is configuration, and a canonical table is easier to audit.
    private static func checkPrefix(_ prefix: String) throws(PayloadConfigError) -> String {
        let bytes = Array(prefix.utf8)
        guard bytes.count == LinkingCodeAlphabet.prefixLength, bytes.allSatisfy(LinkingCodeAlphabet.contains) else {
            throw PayloadConfigError(.badPrefix,
                "prefix \(PayloadText.quoted(prefix)) must be 2 upper-case characters from \(LinkingCodeAlphabet.characters)",
                context: ["field": "prefix"])
        }
        return prefix
    }

    private static func checkSponsorID(_ id: String) throws(PayloadConfigError) -> String {
        guard !id.isEmpty, id.trimmingWhitespace() == id else {
            throw PayloadConfigError(.badSponsorID, "sponsor_id must be non-empty with no surrounding spaces",
                                     context: ["field": "sponsor_id"])
        }
        guard id.unicodeScalars.count <= maxSponsorIDLength, PayloadTaint.first(in: id) == nil else {
            throw PayloadConfigError(.badSponsorID,
                "sponsor_id must be at most \(maxSponsorIDLength) characters with no control characters",
                context: ["field": "sponsor_id"])
        }
        return id
    }

    /// https only, so linking codes and tokens never travel in clear text; plain http is allowed for
    /// 127.0.0.1 / localhost, where the test stand-in backend listens. User info is refused because
    /// credentials do not belong in a configuration file.
    private static func checkURL(_ text: String) throws(PayloadConfigError) -> URL {
        let context = ["field": "backend_url"]
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty, let url = URL(string: text) else {
            throw PayloadConfigError(.badBackendURL,
                "backend_url \(PayloadText.quoted(text)) is not an absolute URL with a host", context: context)
        }
        guard components.user == nil, components.password == nil else {
            throw PayloadConfigError(.badBackendURL, "backend_url must not carry a user name or password", context: context)
        }
        let loopback = ["127.0.0.1", "localhost"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw PayloadConfigError(.badBackendURL,
                "backend_url \(PayloadText.quoted(text)) must use https (plain http only for 127.0.0.1 or localhost)",
                context: context)
        }
        return url
    }
}
