import Foundation

/// Runs `python3 -c` with jsonschema (Debian's python3-jsonschema, or pip's) to validate the
/// document and values against its schemas. Python because the reference validators are there;
/// the agent itself never needs it.
enum PythonValidator {
    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Works with jsonschema 4.10 (Debian 12) and later: the whole document is the root schema with
    /// a `$ref` to the component, so `#/components/...` references resolve without a registry
    /// (Draft 2020-12 ignores the document's other members as unknown keywords).
    static let script = #"""
import json, sys
doc = json.load(open(sys.argv[1]))
values = json.load(open(sys.argv[2]))
from jsonschema import Draft202012Validator
failures = []
try:
    import openapi_spec_validator as osv
    validate = getattr(osv, "validate", None) or getattr(osv, "validate_spec")
    validate(doc)
    print("openapi-spec-validator: document valid")
except ImportError:
    failures.append("openapi-spec-validator is not importable: .ci/install-deps installs it from PyPI (a missing validator fails, issue #16)")
except Exception as e:
    failures.append("openapi-spec-validator: %s" % e)
for name, schema in doc["components"]["schemas"].items():
    try:
        Draft202012Validator.check_schema(schema)
    except Exception as e:
        failures.append("schema %s: %s" % (name, e))
def validator(name):
    root = dict(doc)
    root["$ref"] = "#/components/schemas/" + name
    return Draft202012Validator(root)
def resolve(v):
    ref = v.get("$ref") if isinstance(v, dict) else None
    if not ref: return v
    node = doc
    for part in ref[2:].split("/"): node = node[part]
    return node
examples = 0
for path, item in doc["paths"].items():
    for method, op in item.items():
        holders = []
        if "requestBody" in op: holders.append(("request", resolve(op["requestBody"])))
        for status, r in op.get("responses", {}).items(): holders.append(("response " + status, resolve(r)))
        for label, holder in holders:
            media = holder.get("content", {}).get("application/json")
            if media is None: continue
            name = media["schema"]["$ref"].split("/")[-1]
            v = validator(name)
            for ex_name, ex in media.get("examples", {}).items():
                examples += 1
                for err in v.iter_errors(resolve(ex)["value"]):
                    failures.append("%s %s %s example %s: %s at %s" % (method.upper(), path, label, ex_name, err.message, list(err.absolute_path)))
for item in values:
    for err in validator(item["schema"]).iter_errors(item["value"]):
        failures.append("Swift value %s (%s): %s at %s" % (item["label"], item["schema"], err.message, list(err.absolute_path)))
print("examples validated: %d, Swift values validated: %d" % (examples, len(values)))
for f in failures: print("FAIL " + f)
sys.exit(1 if failures else 0)
"""#

    static func hasJSONSchema() -> Bool {
        (try? run(arguments: ["-c", "import jsonschema"]).status) == 0
    }

    static func validate(document: URL, values: URL) throws -> Outcome {
        try run(arguments: ["-c", script, document.path, values.path])
    }

    static func run(arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
