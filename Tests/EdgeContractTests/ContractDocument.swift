import EdgeContract
import Foundation

/// models/openapi.json, read as JSON values, with the walks the tests need: every request and
/// response body of every operation with its schema name and examples.
struct ContractDocument {
    /// One JSON body of one operation.
    struct Body {
        /// e.g. `POST /api/grn/confirm request` or `... response 409`.
        var label: String
        /// The `components/schemas` name its schema refers to.
        var schemaName: String?
        /// Example name -> value.
        var examples: [String: JSONValue]
    }

    static let fileURL: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EdgeContractTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("models/openapi.json")

    let root: JSONValue

    init() throws {
        let data = try Data(contentsOf: Self.fileURL)
        root = try ContractCoding.decode(JSONValue.self, from: [UInt8](data))
    }

    var paths: [String: JSONValue] {
        if case .object(let members) = root["paths"] ?? .null { return members }
        return [:]
    }

    /// Follows a local `$ref` (`#/components/...`) once; anything else is returned as is.
    func resolve(_ value: JSONValue) -> JSONValue {
        guard let reference = value["$ref"]?.stringValue, reference.hasPrefix("#/") else { return value }
        var current: JSONValue? = root
        for component in reference.dropFirst(2).split(separator: "/") {
            current = current?[String(component)]
        }
        return current ?? .null
    }

    static func schemaName(of schema: JSONValue?) -> String? {
        guard let reference = schema?["$ref"]?.stringValue else { return nil }
        let prefix = "#/components/schemas/"
        guard reference.hasPrefix(prefix) else { return nil }
        return String(reference.dropFirst(prefix.count))
    }

    func bodies() -> [Body] {
        var result: [Body] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            guard case .object(let operations) = item else { continue }
            for (method, operation) in operations.sorted(by: { $0.key < $1.key }) {
                let name = "\(method.uppercased()) \(path)"
                if let requestBody = operation["requestBody"] {
                    result.append(contentsOf: jsonBodies(of: resolve(requestBody), label: "\(name) request"))
                }
                if case .object(let responses) = operation["responses"] ?? .null {
                    for (status, response) in responses.sorted(by: { $0.key < $1.key }) {
                        result.append(contentsOf: jsonBodies(of: resolve(response), label: "\(name) response \(status)"))
                    }
                }
            }
        }
        return result
    }

    private func jsonBodies(of holder: JSONValue, label: String) -> [Body] {
        guard let media = holder["content"]?["application/json"] else { return [] }
        var examples: [String: JSONValue] = [:]
        if case .object(let named) = media["examples"] ?? .null {
            for (name, example) in named { examples[name] = resolve(example)["value"] ?? .null }
        }
        return [Body(label: label, schemaName: Self.schemaName(of: media["schema"]), examples: examples)]
    }
}
