import EdgeCore

/// A top-level section of edge.json that a capability owns and decodes itself (`enrollment`,
/// `receiving`, `ui`): its name, its keys (unknown ones are refused with the rest of the file's,
/// AGT-10) and how it is checked. `StationSchema.configurationSections` (EdgeStation) lists every
/// one, so the loader knows the whole file without depending on the capabilities.
public struct ConfigurationSection: Sendable {
    public let name: String
    public let keys: ConfigurationKeys
    /// Decodes the section as its capability will, so that `edge run`, a reload and `edge config
    /// check` refuse a bad value whatever the station's role.
    public let check: @Sendable (StationConfiguration) throws(StationConfigurationError) -> Void

    public init(name: String, keys: ConfigurationKeys, check: @escaping @Sendable (StationConfiguration) throws(StationConfigurationError) -> Void) {
        self.name = name
        self.keys = keys
        self.check = check
    }

    /// A section that is one `Decodable` value: checked by decoding it (`StationConfiguration.section`).
    public static func decoding<T: Decodable & Sendable>(_ name: String, as type: T.Type, keys: ConfigurationKeys) -> ConfigurationSection {
        ConfigurationSection(name: name, keys: keys) { configuration throws(StationConfigurationError) in
            _ = try configuration.section(name, as: T.self)
        }
    }
}
