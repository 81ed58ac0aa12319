import Foundation

/// Waits for `condition` to hold, looking again every 20 ms, up to `timeout`: tests await an
/// outcome instead of sleeping a fixed time. Throws `Timeout` with `what` when it never holds.
public func eventually(_ what: @autoclosure () -> String, timeout: Duration = .seconds(20),
                       _ condition: () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    if try await condition() { return }
    throw Timeout(description: "timed out after \(timeout) waiting for: \(what())")
}

public struct Timeout: Error, CustomStringConvertible {
    public let description: String
}

/// Something a test starts and must stop before the test ends: a stand-in, a running station.
public protocol Stoppable {
    func stop() async
}

/// Runs `body` with `resource`, then stops it, whether `body` threw or not. A `defer` cannot
/// await, and a station whose camera threads still run when the test process exits can crash
/// it (seen once, signal 11, after a lone kiosk test).
public func withStopping<R>(_ resource: R, stop: (R) async -> Void, _ body: (R) async throws -> Void) async throws {
    do {
        try await body(resource)
    } catch {
        await stop(resource)
        throw error
    }
    await stop(resource)
}

public func withStopping<R: Stoppable>(_ resource: R, _ body: (R) async throws -> Void) async throws {
    try await withStopping(resource, stop: { await $0.stop() }, body)
}

/// The package's root and its checked-in files, for tests that read models/ and samples/.
public enum PackageFiles {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}

/// Real validators in Python (installed by .ci/install-deps): jsonschema for models/, and
/// prometheus_client's own text parser for /metrics.
public enum PythonCheck {
    /// Validates `document` against the schema at `schemaPath` (Draft 2020-12); throws the
    /// validator's message when it does not conform.
    public static func validate(json document: Data, schema schemaPath: String) throws {
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        jsonschema.Draft202012Validator(schema).validate(json.load(sys.stdin))
        """
        try Command.run(["python3", "-c", script, schemaPath], input: document)
    }

    /// Validates `document` against the component schema `name` of models/openapi.json (an
    /// outbox payload such as ENROLLMENT_EVENT), its `$ref`s resolved within the contract; or of
    /// the OpenAPI document `contract` names instead (relative to the package root, e.g.
    /// models/kiosk-api.openapi.json for the kiosk's answers).
    public static func validate(json document: Data, openAPIComponent name: String,
                                document contract: String = "models/openapi.json") throws {
        let script = """
        import json, sys, jsonschema
        contract = json.load(open(sys.argv[1]))
        schema = {"$ref": "#/components/schemas/" + sys.argv[2], "components": contract["components"]}
        jsonschema.Draft202012Validator(schema).validate(json.load(sys.stdin))
        """
        try Command.run(["python3", "-c", script, PackageFiles.path(contract), name], input: document)
    }

    /// Parses Prometheus text with `prometheus_client.parser`; returns every sample as
    /// "name{sorted labels}" → value.
    public static func prometheusSamples(_ text: Data) throws -> [String: Double] {
        let script = """
        import sys, json
        from prometheus_client.parser import text_string_to_metric_families
        out = {}
        for family in text_string_to_metric_families(sys.stdin.read()):
            for s in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                out[s.name + "{" + labels + "}"] = s.value
        print(json.dumps(out))
        """
        let output = try Command.run(["python3", "-c", script], input: text)
        return try JSONDecoder().decode([String: Double].self, from: output)
    }
}
