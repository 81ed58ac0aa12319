import EdgeCore

/// The `scanning` section of edge.json (decoded with the station configuration, here so that the
/// `edge` front can apply its defaults without the agent): which symbologies this station reads and how Code 39 is
/// read, for its cameras and for `edge scan` (issue #15; the CLI's --symbology,
/// --code39-full-ascii and --code39-check-digit win).
public struct ScanningSettings: Sendable, Equatable, Decodable {
    /// The four standard symbologies unless the station lists its own (e.g. adds `code32`).
    public var symbologies: Set<BarcodeFormat> = BarcodeFormat.standard
    /// `auto` (Full ASCII when every shift pair is valid), `raw`, or `full-ascii`.
    public var code39FullASCII: Code39FullASCII.Policy = .auto
    /// `optional` (most labels) or `required`: the mod-43 check character is verified and stripped.
    public var code39CheckDigit: ReaderOptions.CheckDigitPolicy = .optional

    public init() {}

    /// The keys of the `scanning` section (unknown ones are refused).
    public static let configurationKeys = ConfigurationKeys.object(CodingKeys.self)

    enum CodingKeys: String, CodingKey, CaseIterable {
        case symbologies
        case code39FullASCII = "code39_full_ascii"
        case code39CheckDigit = "code39_check_digit"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let names = try c.decodeIfPresent([String].self, forKey: .symbologies) {
            do throws(ScanError) {
                symbologies = try BarcodeFormat.parseList(names.joined(separator: ","))
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .symbologies, in: c, debugDescription: error.message)
            }
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .code39FullASCII) {
            guard let policy = Code39FullASCII.Policy(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .code39FullASCII, in: c, debugDescription: "auto, raw or full-ascii")
            }
            code39FullASCII = policy
        }
        if let text = try c.decodeIfPresent(String.self, forKey: .code39CheckDigit) {
            guard let policy = ReaderOptions.CheckDigitPolicy(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .code39CheckDigit, in: c, debugDescription: "optional or required")
            }
            code39CheckDigit = policy
        }
    }

    /// `options` with this station's symbologies and Code 39 rules.
    public func apply(to options: ReaderOptions) -> ReaderOptions {
        var options = options
        options.formats = symbologies
        options.code39FullASCII = code39FullASCII
        options.code39CheckDigit = code39CheckDigit
        return options
    }
}
