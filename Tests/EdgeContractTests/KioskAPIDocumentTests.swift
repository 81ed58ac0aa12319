import Foundation
import XCTest

/// models/kiosk-api.openapi.json, the kiosk's JSON API under /api/v1 (issue #14, UI-1): valid
/// OpenAPI 3.1 (openapi-spec-validator, required as for models/openapi.json), its schemas valid
/// JSON Schema 2020-12 and every example fitting its schema (PythonValidator, the same script);
/// every route of the design with the CSRF header on each POST and the error shape on each
/// failure; and the documents the CLI prints (models/*.schema.json) copied into it unchanged.
final class KioskAPIDocumentTests: XCTestCase {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // EdgeContractTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
    static let fileURL = packageRoot.appendingPathComponent("models/kiosk-api.openapi.json")

    /// The routes of the design, method and path, no more and no fewer.
    static let routes: Set<String> = [
        "GET /api/v1/session", "POST /api/v1/session",
        "GET /api/v1/status",
        "GET /api/v1/events",
        "POST /api/v1/dock/scans", "GET /api/v1/dock/lookup",
        "POST /api/v1/dock/photos", "GET /api/v1/dock/photos/{id}",
        "POST /api/v1/dock/grns", "GET /api/v1/dock/grns/{key}",
        "GET /api/v1/dock/receipts/{po}", "DELETE /api/v1/dock/receipts/{po}", "PUT /api/v1/dock/receipts/{po}/lines/{line}",
        "POST /api/v1/dock/receipts/{po}/undo", "DELETE /api/v1/dock/receipts/{po}/photos/{sha}",
        "POST /api/v1/clinic/code-check",
        "POST /api/v1/clinic/enrollments", "GET /api/v1/clinic/enrollments",
        "POST /api/v1/clinic/enrollments/{id}/check", "POST /api/v1/clinic/enrollments/{id}/cancel",
    ]

    /// The components the kiosk's code and tests name.
    static let components: Set<String> = [
        "Status", "Enrollment", "EnrollmentList", "Lookup", "GRNConfirmation", "GRNOutcome", "CodeCheck",
        "Session", "Error", "Photo", "ScanRequest", "GRNRequest", "EnrollRequest", "CodeCheckRequest", "PinRequest",
        "Receipt", "ReceiptLineEdit", "DockNotice", "ReceiptEventData",
    ]

    /// The headers the design puts on every answer.
    static let everyResponseHeaders: Set<String> = ["Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "Cache-Control"]

    private var root: [String: Any] = [:]

    override func setUpWithError() throws {
        let data = try Data(contentsOf: Self.fileURL)
        root = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], "the document is not a JSON object")
    }

    func testDocumentIsValidOpenAPIAndEveryExampleFitsItsSchema() throws {
        XCTAssertTrue(PythonValidator.hasJSONSchema(), "python3 has no jsonschema module: run .ci/install-deps")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-kiosk-api-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let valuesURL = directory.appendingPathComponent("values.json")
        try Data("[]".utf8).write(to: valuesURL)

        let outcome = try PythonValidator.validate(document: Self.fileURL, values: valuesURL)
        print(outcome.output)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("openapi-spec-validator: document valid"), outcome.output)
        XCTAssertTrue(outcome.output.contains("examples validated: \(jsonBodies().reduce(0) { $0 + $1.examples })"), outcome.output)
    }

    /// Every JSON body refers to a named component and carries at least one example (so the
    /// validator above has something to check it with).
    func testEveryJSONBodyNamesAComponentAndHasAnExample() throws {
        let schemas = try XCTUnwrap(object(root["components"])?["schemas"] as? [String: Any])
        for body in jsonBodies() {
            let name = try XCTUnwrap(body.schemaName, "\(body.label): the schema is not a $ref to components/schemas")
            XCTAssertNotNil(schemas[name], "\(body.label): no component \(name)")
            XCTAssertGreaterThan(body.examples, 0, "\(body.label) has no example")
        }
        XCTAssertTrue(Self.components.isSubset(of: Set(schemas.keys)), "missing components: \(Self.components.subtracting(schemas.keys).sorted())")
    }

    func testEveryRouteOfTheDesignAndNoOther() throws {
        XCTAssertEqual(root["openapi"] as? String, "3.1.0")
        XCTAssertEqual(Set(operations().map { "\($0.method.uppercased()) \($0.path)" }), Self.routes)
    }

    /// UI-7: every state change (POST, PUT, DELETE) is JSON and carries X-CSRF-Token (required), refused with 403 (csrf,
    /// cross-site) and 415 (not JSON); every failure is {"error": {...}}; every answer lists the
    /// design's security headers.
    func testPostsRequireTheCSRFHeaderAndFailuresUseTheErrorShape() throws {
        for operation in operations() {
            let label = "\(operation.method.uppercased()) \(operation.path)"
            let responses = try XCTUnwrap(object(operation.body["responses"]), "\(label) has no responses")
            if operation.method != "get" {
                let parameters = (operation.body["parameters"] as? [Any] ?? []).compactMap { object(resolve($0)) }
                let csrf = parameters.first { $0["name"] as? String == "X-CSRF-Token" }
                XCTAssertEqual(csrf?["in"] as? String, "header", label)
                XCTAssertEqual(csrf?["required"] as? Bool, true, label)
                let requestBody = object(resolve(operation.body["requestBody"]))
                XCTAssertEqual(requestBody?["required"] as? Bool, true, label)
                XCTAssertEqual(Set((object(requestBody?["content"]) ?? [:]).keys), ["application/json"], label)
                XCTAssertNotNil(responses["403"], "\(label) has no 403 (CSRF)")
                XCTAssertNotNil(responses["415"], "\(label) has no 415 (not JSON)")
            }
            for (status, value) in responses {
                let response = try XCTUnwrap(object(resolve(value)), "\(label) \(status)")
                let headers = Set((object(response["headers"]) ?? [:]).keys)
                XCTAssertTrue(Self.everyResponseHeaders.isSubset(of: headers), "\(label) \(status) lacks \(Self.everyResponseHeaders.subtracting(headers).sorted())")
                guard let first = status.first, first == "4" || first == "5" else { continue }
                let media = object(object(response["content"])?["application/json"])
                XCTAssertEqual(object(media?["schema"])?["$ref"] as? String, "#/components/schemas/Error", "\(label) \(status)")
            }
        }
    }

    /// UI-5: the event stream names its events (the design's four, `hello` and `linking-code`) and the schema of
    /// each one's data; a reconnect sends Last-Event-ID.
    func testEventStreamDescribesItsEvents() throws {
        let operation = try XCTUnwrap(operations().first { $0.path == "/api/v1/events" && $0.method == "get" })
        let parameters = (operation.body["parameters"] as? [Any] ?? []).compactMap { object(resolve($0)) }
        XCTAssertTrue(parameters.contains { $0["name"] as? String == "Last-Event-ID" && $0["in"] as? String == "header" })
        let ok = try XCTUnwrap(object(resolve(object(operation.body["responses"])?["200"])))
        let stream = try XCTUnwrap(object(object(ok["content"])?["text/event-stream"]), "200 is not text/event-stream")
        let events = try XCTUnwrap(object(stream["x-events"]), "no x-events")
        XCTAssertEqual(Set(events.keys), ["hello", "scan", "lookup", "enrollment", "status", "linking-code", "receipt", "notice"])
        let schemas = object(object(root["components"])?["schemas"]) ?? [:]
        for (name, event) in events {
            let reference = try XCTUnwrap(object(object(event)?["data"])?["$ref"] as? String, name)
            XCTAssertNotNil(schemas[reference.replacingOccurrences(of: "#/components/schemas/", with: "")], "\(name): \(reference)")
        }
    }

    /// Beyond loopback the API wants the session cookie; only the login (POST /api/v1/session)
    /// goes without.
    func testSessionCookieScheme() throws {
        let schemes = try XCTUnwrap(object(object(root["components"])?["securitySchemes"]))
        let session = try XCTUnwrap(object(schemes["session"]))
        XCTAssertEqual(session["type"] as? String, "apiKey")
        XCTAssertEqual(session["in"] as? String, "cookie")
        XCTAssertEqual((root["security"] as? [Any])?.compactMap { object($0)?.keys.sorted() }, [["session"], []])
        for operation in operations() {
            let open = (operation.body["security"] as? [Any]).map { $0.count == 1 && object($0.first)?.isEmpty == true } ?? false
            XCTAssertEqual(open, operation.path == "/api/v1/session" && operation.method == "post", "\(operation.method) \(operation.path)")
        }
    }

    /// The answers that are the CLI's documents are copies of models/*.schema.json: after every
    /// `$ref` is followed, each component equals the part of the CLI schema it was copied from
    /// (title and description at its top aside), except for the members the kiosk adds and
    /// the CLI schema does not have yet (agent.ui in Status, waiting in GRNConfirmation).
    func testCLIDocumentsAreCopiedUnchanged() throws {
        let outcome = try PythonValidator.run(arguments: ["-c", Self.copyCheck, Self.packageRoot.path])
        print(outcome.output)
        XCTAssertEqual(outcome.status, 0, outcome.output)
        XCTAssertTrue(outcome.output.contains("copies checked: 10"), outcome.output)
    }

    static let copyCheck = #"""
import json, sys, copy
root = sys.argv[1]
kiosk = json.load(open(root + "/models/kiosk-api.openapi.json"))
# component, CLI schema, JSON pointer into it, members the kiosk adds (dropped when the CLI schema lacks them)
copies = [
    ("Status", "station-status.schema.json", "", [("agent", "ui")]),
    ("ScanEvent", "station-status.schema.json", "/$defs/event", []),
    ("StatusCamera", "station-status.schema.json", "/properties/cameras/items", []),
    ("Enrollment", "enrollments.schema.json", "/$defs/enrollment", []),
    ("EnrollmentList", "enrollments.schema.json", "/oneOf/0", []),
    ("Card", "lookup.schema.json", "", []),
    ("Order", "receive-order.schema.json", "", []),
    ("GRNConfirmation", "receive-confirmation.schema.json", "", [("waiting",)]),
    ("GRNConflict", "receive-confirmation.schema.json", "/properties/conflict", []),
    ("GRNLine", "receive-confirmation.schema.json", "/properties/lines/items", []),
]
def pointer(doc, p):
    node = doc
    for part in [x for x in p.split("/") if x]: node = node[int(part) if isinstance(node, list) else part]
    return node
# Follows every $ref: a lone {"$ref"} becomes its target (without the target's own title and
# description), one with other keywords beside it keeps them, so that where the CLI schema has a
# subschema inline and the copy a component (or the other way round) they compare equal.
def deref(node, doc, seen=()):
    if isinstance(node, list): return [deref(x, doc, seen) for x in node]
    if not isinstance(node, dict): return node
    out = {}
    for k, v in node.items():
        if k == "$ref":
            if v in seen: raise Exception("recursive $ref " + v)
            target = {t: w for t, w in pointer(doc, v[1:]).items() if t not in ("title", "description")}
            out["$ref"] = deref(target, doc, seen + (v,))
        elif k in ("$schema", "$id", "$defs"): continue
        else: out[k] = deref(v, doc, seen)
    if list(out.keys()) == ["$ref"]: return out["$ref"]
    return out
def drop(schema, source, path):
    # path: member names; walks properties
    s, c = schema, source
    for name in path[:-1]:
        s = s["properties"][name]
        c = (c or {}).get("properties", {}).get(name)
    last = path[-1]
    if c is not None and last in c.get("properties", {}): return
    s["properties"].pop(last, None)
    if last in s.get("required", []): s["required"] = [r for r in s["required"] if r != last]
failures = []
for name, file, p, added in copies:
    source_doc = json.load(open(root + "/models/" + file))
    source = deref(pointer(source_doc, p), source_doc)
    component = kiosk["components"]["schemas"].get(name)
    if component is None:
        failures.append("no component " + name); continue
    mine = deref(component, kiosk)
    for path in added: drop(mine, source, list(path))
    for s in (source, mine):
        s.pop("title", None); s.pop("description", None)
    if mine != source:
        a, b = json.dumps(source, sort_keys=True, indent=1).splitlines(), json.dumps(mine, sort_keys=True, indent=1).splitlines()
        import difflib
        failures.append("%s differs from models/%s%s:\n%s" % (name, file, p, "\n".join(list(difflib.unified_diff(a, b, "cli", "kiosk", lineterm=""))[:60])))
print("copies checked: %d" % len(copies))
for f in failures: print("FAIL " + f)
sys.exit(1 if failures else 0)
"""#

    // MARK: - Walking the document

    private struct Operation {
        var path: String
        var method: String
        var body: [String: Any]
    }

    private struct JSONBody {
        var label: String
        var schemaName: String?
        var examples: Int
    }

    private func object(_ value: Any?) -> [String: Any]? { value as? [String: Any] }

    /// Follows a local `$ref` once.
    private func resolve(_ value: Any?) -> Any? {
        guard let reference = object(value)?["$ref"] as? String, reference.hasPrefix("#/") else { return value }
        var current: Any? = root
        for part in reference.dropFirst(2).split(separator: "/") { current = object(current)?[String(part)] }
        return current
    }

    private func operations() -> [Operation] {
        var result: [Operation] = []
        for (path, item) in object(root["paths"]) ?? [:] {
            for (method, body) in object(item) ?? [:] where ["get", "post", "put", "patch", "delete"].contains(method) {
                result.append(Operation(path: path, method: method, body: object(body) ?? [:]))
            }
        }
        return result.sorted { ($0.path, $0.method) < ($1.path, $1.method) }
    }

    private func jsonBodies() -> [JSONBody] {
        var result: [JSONBody] = []
        func add(_ holder: Any?, _ label: String) {
            guard let media = object(object(object(resolve(holder))?["content"])?["application/json"]) else { return }
            let reference = object(media["schema"])?["$ref"] as? String
            let name = reference.flatMap { $0.hasPrefix("#/components/schemas/") ? String($0.dropFirst("#/components/schemas/".count)) : nil }
            result.append(JSONBody(label: label, schemaName: name, examples: object(media["examples"])?.count ?? 0))
        }
        for operation in operations() {
            let label = "\(operation.method.uppercased()) \(operation.path)"
            if let requestBody = operation.body["requestBody"] { add(requestBody, "\(label) request") }
            for (status, response) in object(operation.body["responses"]) ?? [:] { add(response, "\(label) response \(status)") }
        }
        return result
    }
}
