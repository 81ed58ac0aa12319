import EdgeTestSupport
import Foundation
import XCTest

/// SCN-13 and SCN-9 in `edge scan`: a GS1 read's AIs as `gs1` and its human-readable form as
/// `gs1_text` in JSON (valid against models/scan-result.schema.json), the form on the readable
/// line, and an invalid string's reason; from the committed samples and from symbols zint draws
/// now.
final class GS1ScanTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = try temporaryDirectory(prefix: "edge-gs1").url
    }

    private func records(_ files: [String]) throws -> [String: [String: Any]] {
        let outcome = try EdgeProcess.run(["scan", "--json", "--config", "samples/edge.json", "--image"] + files)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        var byFile: [String: [String: Any]] = [:]
        for line in outcome.lines {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
            byFile[object["file"] as? String ?? ""] = object
        }
        let out = tmp.appendingPathComponent("out-\(UUID().uuidString).jsonl")
        try outcome.stdout.write(to: out, atomically: true, encoding: .utf8)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: out, against: "models/scan-result.schema.json"), outcome.lines.count)
        return byFile
    }

    private func entries(_ record: [String: Any]?) -> [[String: String]] {
        (record?["gs1"] as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    func testTheGS1SamplesCarryTheirAIs() throws {
        let got = try records(["samples/gs1-128.png", "samples/gs1-qr.png", "samples/gs1-bad-date.png"])

        let code128 = got["samples/gs1-128.png"]
        XCTAssertEqual(code128?["class"] as? String, "product")
        XCTAssertEqual(code128?["text"] as? String, "0109506000134352" + "10ABC123\u{1D}" + "17201225")
        XCTAssertEqual(code128?["gs1_text"] as? String, "(01)09506000134352(10)ABC123(17)201225")
        XCTAssertEqual(entries(code128), [["ai": "01", "name": "GTIN", "value": "09506000134352"],
                                          ["ai": "10", "name": "BATCH/LOT", "value": "ABC123"],
                                          ["ai": "17", "name": "USE BY or EXPIRY", "value": "201225", "date": "2020-12-25"]])
        XCTAssertEqual(code128?["details"] as? [String: String], ["gtin": "9506000134352", "kind": "gtin", "lot": "ABC123", "expiry": "2020-12-25"])

        let qr = got["samples/gs1-qr.png"]
        XCTAssertEqual(qr?["symbology"] as? String, "qr")
        XCTAssertEqual(qr?["gs1_text"] as? String, "(01)09506000134352(10)ABC123(21)XYZ-0042(17)201200")
        XCTAssertEqual(entries(qr).last, ["ai": "17", "name": "USE BY or EXPIRY", "value": "201200", "date": "2020-12-31"])

        let bad = got["samples/gs1-bad-date.png"]
        XCTAssertEqual(bad?["class"] as? String, "product")
        XCTAssertEqual(bad?["valid"] as? Bool, false)
        XCTAssertEqual(bad?["reason"] as? String, "(17) USE BY or EXPIRY: 201332 is not a date (YYMMDD): month 13 does not exist")
        XCTAssertNil(bad?["gs1"])
        XCTAssertNil(bad?["gs1_text"])
    }

    /// Symbols drawn now: a logistic label (no separator needed: all predefined-length or
    /// last), a pallet label without a GTIN, a GS1 QR with a measure, a plain Code 128 of the
    /// same digits.
    func testZintSymbolsThroughTheCommand() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/zint"), "zint is not installed (apt-get install zint)")
        let symbols: [(name: String, arguments: [String])] = [
            ("case", ["-b", "16", "-d", "[01]09506000134352[30]24[10]LOT-7"]),
            ("pallet", ["-b", "16", "-d", "[00]006141411234567890[400]PO-2026-00042"]),
            ("weight", ["-b", "58", "--gs1", "--scale=4", "-d", "[01]95012345678903[3103]000123"]),
            ("plain", ["-b", "20", "-d", "0109506000134352"]),
        ]
        var files: [String] = []
        for symbol in symbols {
            let path = tmp.appendingPathComponent(symbol.name + ".png").path
            let zint = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/zint"), ["--quietzones", "-o", path] + symbol.arguments)
            XCTAssertEqual(zint.status, 0, zint.stderr)
            files.append(path)
        }
        let got = try records(files)
        let unit = got[files[0]]
        XCTAssertEqual(unit?["gs1_text"] as? String, "(01)09506000134352(30)24(10)LOT-7")
        XCTAssertEqual((unit?["details"] as? [String: String])?["count"], "24")
        let pallet = got[files[1]]
        XCTAssertEqual(pallet?["class"] as? String, "gs1")
        XCTAssertEqual(pallet?["details"] as? [String: String], ["sscc": "006141411234567890", "order_number": "PO-2026-00042"])
        let weight = got[files[2]]
        XCTAssertEqual(entries(weight).last, ["ai": "3103", "name": "NET WEIGHT (kg)", "value": "000123", "decimal": "0.123"])
        let plain = got[files[3]]
        XCTAssertEqual(plain?["class"] as? String, "unknown")
        XCTAssertNil(plain?["gs1"])
    }

    func testTheReadableLineShowsTheHumanReadableForm() throws {
        let outcome = try EdgeProcess.run(["scan", "--config", "samples/edge.json", "--image", "samples/gs1-128.png", "samples/gs1-bad-date.png"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.lines, [
            "samples/gs1-128.png: code128 \"010950600013435210ABC123\\u{1d}17201225\" product (01)09506000134352(10)ABC123(17)201225",
            "samples/gs1-bad-date.png: code128 \"01095060001343521720133210ABC123\" product INVALID: (17) USE BY or EXPIRY: 201332 is not a date (YYMMDD): month 13 does not exist",
        ])
    }

    /// The schema holds the shape: gs1 and gs1_text together, never on an invalid record, AIs
    /// as 2-4 digits.
    func testTheSchemaRefusesMalformedGS1Records() throws {
        let valid = #"{"file":"x.png","symbology":"code128","text":"0109506000134352","encoding":"ascii","points":[[0,0]],"orientation":"up","quality":1,"pass":"plain","class":"product","valid":true,"details":{},"gs1":[{"ai":"01","name":"GTIN","value":"09506000134352"}],"gs1_text":"(01)09506000134352"}"#
        let good = tmp.appendingPathComponent("good.jsonl")
        try valid.write(to: good, atomically: true, encoding: .utf8)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: good, against: "models/scan-result.schema.json"), 1)
        let broken = [
            valid.replacingOccurrences(of: #","gs1_text":"(01)09506000134352""#, with: ""),
            valid.replacingOccurrences(of: #""valid":true"#, with: #""valid":false,"reason":"bad""#),
            valid.replacingOccurrences(of: #""ai":"01""#, with: #""ai":"1""#),
            valid.replacingOccurrences(of: #""gs1_text":"(01)09506000134352""#, with: #""gs1_text":"01 09506000134352""#),
        ]
        let script = """
        import json, sys, jsonschema
        v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
        print(sum(1 for line in sys.stdin if not v.is_valid(json.loads(line))))
        """
        let python = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, "models/scan-result.schema.json"],
                                         input: Data(broken.joined(separator: "\n").utf8))
        XCTAssertEqual(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines), String(broken.count), python.stderr)
    }
}
