@testable import EdgeAgent
import EdgeCore
import EdgeStation
import EdgeTestSupport
import Foundation
import XCTest

/// AGT-10's one source of truth: the keys the loader accepts are the decoders' own
/// (`ConfigurationKeys` from their `CodingKeys`); models/edge-config.schema.json must describe the
/// same tree and forbid every other key, so an editor validating against the schema and `edge
/// config check` agree on what a typo is.
final class ConfigurationSchemaTests: XCTestCase {
    private static let schemaPath = PackageFiles.path("models/edge-config.schema.json")

    func testTheSchemaKnowsExactlyTheKeysTheLoaderReads() throws {
        let schema = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.schemaPath))) as? [String: Any])
        let fromSchema = try Self.keys(schema, path: "")
        let fromLoader = StationConfiguration.knownKeys(sections: StationSchema.configurationSections)
        XCTAssertEqual(Self.differences(fromSchema, fromLoader, path: ""), [], "schema vs loader")
        XCTAssertEqual(fromSchema, fromLoader)
    }

    /// The sample file passes both; a typo is refused by both.
    func testTheSampleIsValidAndATypoIsRefusedByTheSchemaToo() throws {
        let sample = PackageFiles.path("samples/edge.json")
        XCTAssertEqual(StationConfiguration.check(path: sample, sections: StationSchema.configurationSections).map(\.message), [])
        try PythonCheck.validate(json: Data(contentsOf: URL(fileURLWithPath: sample)), schema: Self.schemaPath)
        for typo in [#"{"snyc": {}}"#, #"{"station": {"nmae": "x"}}"#, #"{"sponsors": [{"prefix": "AB", "sponsor_id": "a", "backend_url": "https://a.invalid", "backend_ulr": "x"}]}"#,
                     #"{"sync": {"base_url": "https://a.invalid", "tokne_secret": "x"}}"#, #"{"ui": {"lisen": "127.0.0.1:0"}}"#] {
            XCTAssertThrowsError(try PythonCheck.validate(json: Data(typo.utf8), schema: Self.schemaPath), typo)
            let problems = StationConfiguration.evaluateForTest(typo)
            XCTAssertEqual(problems.map(\.code), [.unknownKey], typo)
        }
    }

    /// A capability's section is checked by the loader whatever the role: its unknown keys with
    /// the nearest known one, and its bad values, with the rest of the file's problems.
    func testCapabilitySectionsAreCheckedWithTheRest() throws {
        let problems = StationConfiguration.evaluateForTest("""
            {"ui": {"lisen": "127.0.0.1:0"}, "enrollment": {"request_timeout": 1000}, "receiving": {"tenant_id": "acme", "photo_dri": "/x"},
             "station": {"role": "dock", "nmae": "x"}}
            """)
        XCTAssertEqual(problems.map(\.message).prefix(3), [
            "configuration edge.json: receiving.photo_dri: unknown key; did you mean receiving.photo_dir?",
            "configuration edge.json: station.nmae: unknown key; did you mean station.name?",
            "configuration edge.json: ui.lisen: unknown key; did you mean ui.listen?",
        ])
        XCTAssertEqual(problems.dropFirst(3).map { "\($0.code.rawValue) \($0.keyPath)" }, ["invalid enrollment.request_timeout", "invalid receiving.tenant_id"])
    }

    /// The schema's key tree, read as `ConfigurationKeys`: an object with properties must forbid
    /// other keys (`additionalProperties: false`) unless it is a map of names
    /// (`additionalProperties` a schema); a list is a list of its items' shape.
    private static func keys(_ node: [String: Any], path: String) throws -> ConfigurationKeys {
        if let extra = node["additionalProperties"] as? [String: Any] {
            return .map(try keys(extra, path: path + ".*"))
        }
        if let properties = node["properties"] as? [String: Any] {
            guard node["additionalProperties"] as? Bool == false else {
                throw SetupFailure("\(path.isEmpty ? "the top level" : path): the schema does not forbid unknown keys (additionalProperties: false)")
            }
            var tree: [String: ConfigurationKeys] = [:]
            for (key, value) in properties {
                tree[key] = try keys(try XCTUnwrap(value as? [String: Any]), path: path.isEmpty ? key : path + "." + key)
            }
            return .object(tree)
        }
        if let items = node["items"] as? [String: Any] {
            let shape = try keys(items, path: path + "[]")
            return shape == .value ? .value : .array(shape)
        }
        return .value
    }

    /// Where two trees differ, as key paths, so a failure says which key to add to which side.
    private static func differences(_ a: ConfigurationKeys, _ b: ConfigurationKeys, path: String) -> [String] {
        switch (a, b) {
        case (.value, .value): return []
        case (.map(let x), .map(let y)): return differences(x, y, path: path + ".*")
        case (.array(let x), .array(let y)): return differences(x, y, path: path + "[]")
        case (.object(let x), .object(let y)):
            var out: [String] = []
            for key in Set(x.keys).union(y.keys).sorted() {
                let child = path.isEmpty ? key : path + "." + key
                switch (x[key], y[key]) {
                case (let left?, let right?): out += differences(left, right, path: child)
                case (nil, _): out.append("\(child): only the loader reads it")
                case (_, nil): out.append("\(child): only the schema has it")
                }
            }
            return out
        default:
            return ["\(path): schema \(a), loader \(b)"]
        }
    }
}

private extension StationConfiguration {
    /// Every problem of `json` as the station checks it (the capabilities' sections included).
    static func evaluateForTest(_ json: String) -> [StationConfigurationError] {
        evaluate(Data(json.utf8), sections: StationSchema.configurationSections).problems
    }
}
