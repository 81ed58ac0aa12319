import EdgeCore
import FoundationEssentials

/// The payload part of `edge.json`: the sponsor table (ENR-4) and configured classes (SCN-6).
///
/// ```json
/// {"sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-a", "backend_url": "https://s1.portal.example/api"}],
///  "classes": [{"name": "pallet", "pattern": "^PAL-[0-9]{6}$", "symbologies": ["code128"]}]}
/// ```
/// Both keys are optional (empty when absent); other top-level keys belong to other modules and are
/// ignored. Replacing the file needs no rebuild (ENR-4).
public struct PayloadConfig: Sendable, Equatable, Decodable {
    public let sponsors: SponsorTable
    public let classes: [PayloadClassRule]

    public init(sponsors: SponsorTable = .empty, classes: [PayloadClassRule] = []) throws(PayloadConfigError) {
        var seen: Set<String> = []
        for (index, rule) in classes.enumerated() {
            guard seen.insert(rule.name).inserted else {
                throw PayloadConfigError(.duplicateClassName, "classes[\(index)]: class \"\(rule.name)\" is defined twice",
                                         context: ["class": rule.name, "index": String(index)])
            }
        }
        self.sponsors = sponsors
        self.classes = classes
    }

    /// Reads the configuration from JSON `Data` (the CLI reads the file and adds its name to errors).
    public init(json: Data) throws(PayloadConfigError) {
        do {
            self = try JSONDecoder().decode(PayloadConfig.self, from: json)
        } catch {
            throw PayloadConfigError.from(error)
        }
    }

    private enum Keys: String, CodingKey {
        case sponsors, classes
    }

    /// The top-level sections this type reads, with their keys (the station's loader refuses
    /// the keys no section reads).
    public static let configurationSections: [String: ConfigurationKeys] = [
        Keys.sponsors.stringValue: .array(SponsorEntry.configurationKeys),
        Keys.classes.stringValue: .array(PayloadClassRule.configurationKeys),
    ]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let sponsors = try container.decodeIfPresent(SponsorTable.self, forKey: .sponsors) ?? .empty
        let classes = try container.decodeIfPresent([PayloadClassRule].self, forKey: .classes) ?? []
        try self.init(sponsors: sponsors, classes: classes)
    }
}
