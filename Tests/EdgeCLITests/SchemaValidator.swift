import Foundation
import XCTest

/// Validates real output against the JSON Schemas in models/ with a real validator: Python's
/// jsonschema (Draft 2020-12), installed by .ci/install-deps.
enum SchemaValidator {
    /// Returns how many documents were valid; fails the calling test on the first invalid one.
    static func validate(jsonLines file: URL, against schema: String, wholeFile: Bool = false) throws -> Int {
        let script = """
        import json, sys
        import jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        v = jsonschema.Draft202012Validator(schema)
        docs = [json.load(open(sys.argv[2]))] if sys.argv[3] == "whole" else [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
        for d in docs:
            v.validate(d)
        print(len(docs))
        """
        let python = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"),
                                         ["python3", "-c", script, schema, file.path, wholeFile ? "whole" : "lines"])
        XCTAssertEqual(python.status, 0, "schema validation against \(schema) failed (is jsonschema installed?):\n\(python.stderr)")
        return Int(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
