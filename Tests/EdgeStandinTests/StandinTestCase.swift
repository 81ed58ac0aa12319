import EdgeContract
import EdgeStandin
import XCTest

/// Starts a seeded stand-in with a static token and the control API before each test, stops it
/// after.
class StandinTestCase: XCTestCase {
    static let token = "test-static-token"
    // Replaced in setUp; the placeholders keep the properties non-optional (no force unwraps).
    var standin = Standin()
    var client = StandinClient(port: 0, token: nil)

    var configuration: StandinConfiguration {
        StandinConfiguration(staticTokens: [Self.token], controlAPI: true, seedDemoData: true)
    }

    override func setUp() async throws {
        standin = Standin(configuration: configuration)
        let port = try await standin.start()
        client = StandinClient(port: port, token: Self.token)
    }

    override func tearDown() async throws {
        await standin.stop()
    }

    /// The example `name` of the 200 answer of `method path` in models/openapi.json.
    func documentExample(_ method: String, _ path: String, status: String = "200", name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("models/openapi.json")
        let document = try ContractCoding.decode(JSONValue.self, from: [UInt8](try Data(contentsOf: url)))
        let value = document["paths"]?[path]?[method]?["responses"]?[status]?["content"]?["application/json"]?["examples"]?[name]?["value"]
        return try XCTUnwrap(value, "no example \(name) for \(method) \(path) \(status)")
    }
}
