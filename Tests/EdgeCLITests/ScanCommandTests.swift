import EdgeTestSupport
import Foundation
import XCTest

final class ScanCommandTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = try temporaryDirectory(prefix: "edge-cli").url
    }

    private func sample(_ name: String) -> String { "samples/" + name }

    private func objects(_ outcome: EdgeProcess.Outcome) throws -> [[String: Any]] {
        try outcome.lines.map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        }
    }

    /// Every committed sample gives what samples/expected.json says (class, validity, reason, details).
    func testSamplesMatchTheirExpectedOutput() throws {
        let expectedData = try Data(contentsOf: EdgeProcess.samples.appendingPathComponent("expected.json"))
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(with: expectedData) as? [String: [String: Any]])
        let files = expected.keys.sorted()
        let outcome = try EdgeProcess.run(["scan", "--json", "--budget-ms", "60000", "--config", "samples/edge.json", "--image"] + files.map(sample))
        XCTAssertEqual(outcome.status, 2, "corrupt.png is unreadable: exit 2\n\(outcome.stderr)")
        let records = try objects(outcome)
        for file in files {
            let want = try XCTUnwrap(expected[file])
            let got = records.filter { ($0["file"] as? String) == sample(file) }
            XCTAssertEqual(got.count, 1, "\(file): \(got)")
            guard let record = got.first else { continue }
            if want["error"] != nil {
                XCTAssertNotNil(record["error"], file)
                XCTAssertTrue((record["error"] as? String ?? "").contains(sample(file)), "error names the file: \(record)")
                continue
            }
            for key in ["symbology", "text", "class", "reason"] where want[key] != nil {
                XCTAssertEqual(record[key] as? String, want[key] as? String, "\(file) \(key)")
            }
            XCTAssertEqual(record["valid"] as? Bool, want["valid"] as? Bool, file)
            if !(want["valid"] as? Bool ?? true) { XCTAssertNotNil(record["reason"], file) }
            let details = record["details"] as? [String: String] ?? [:]
            for (k, v) in want["details"] as? [String: String] ?? [:] {
                XCTAssertEqual(details[k], v, "\(file) details.\(k)")
            }
        }
    }

    /// Real output validated against models/scan-result.schema.json with a real validator
    /// (Python's jsonschema, installed by the setup command and CI).
    func testJSONOutputIsValidAgainstTheSchema() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: EdgeProcess.samples.path)
            .filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }.sorted()
        let outcome = try EdgeProcess.run(["scan", "--json", "--budget-ms", "60000", "--config", "samples/edge.json", "--image"] + files.map(sample))
        let out = tmp.appendingPathComponent("out.jsonl")
        try outcome.stdout.write(to: out, atomically: true, encoding: .utf8)
        XCTAssertGreaterThanOrEqual(outcome.lines.count, files.count)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: out, against: "models/scan-result.schema.json"), outcome.lines.count)
    }

    func testSampleConfigurationIsValidAgainstItsSchema() throws {
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: EdgeProcess.samples.appendingPathComponent("edge.json"),
                                                    against: "models/edge-config.schema.json", wholeFile: true), 1)
    }

    func testReadableOutputIsOneLinePerCode() throws {
        let outcome = try EdgeProcess.run(["scan", "--config", "samples/edge.json", "--image", sample("po-code128.png"), sample("linking-code-lookalike.png")])
        XCTAssertEqual(outcome.status, 0)
        XCTAssertEqual(outcome.lines, [
            "samples/po-code128.png: code128 \"PO-2026-00042\" purchase-order",
            "samples/linking-code-lookalike.png: qr \"AB-7KX-M4PQ0\" linking-code INVALID: Please check your code. The characters I, 1, O, 0, S, 5, Z, 2 are not used in linking codes.",
        ])
    }

    func testExitStatusNoCodeIsOne() throws {
        let blank = tmp.appendingPathComponent("blank.pgm")
        try Data("P5\n64 48\n255\n".utf8 + [UInt8](repeating: 255, count: 64 * 48)).write(to: blank)
        let outcome = try EdgeProcess.run(["scan", "--image", sample("po-code39.png"), blank.path])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(outcome.stderr.contains("\(blank.path): no code found"), outcome.stderr)
        XCTAssertTrue(outcome.stdout.contains("PO-2026-00043"))
    }

    func testUnreadableInputIsTwoAndTheRunGoesOn() throws {
        let empty = tmp.appendingPathComponent("empty.png")
        try Data().write(to: empty)
        let outcome = try EdgeProcess.run(["scan", "--image", empty.path, tmp.appendingPathComponent("missing.jpg").path, sample("product-ean13.png")])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stdout.contains("4006381333931"), "the file after the bad ones is still scanned")
        let errors = outcome.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 2, outcome.stderr)
        XCTAssertTrue(errors[0].contains(empty.path))
        XCTAssertTrue(errors[1].contains("missing.jpg"))
    }

    func testHugeHeaderIsRefusedWithoutAllocating() throws {
        // A PNG whose IHDR claims 100000 x 100000 pixels (10 GP); the pixel limit refuses it from
        // the header, before anything is allocated.
        let huge = tmp.appendingPathComponent("huge.png")
        try PNGHeader.claiming(width: 100_000, height: 100_000).write(to: huge)
        let outcome = try EdgeProcess.run(["scan", "--json", "--image", huge.path, sample("po-code128.png")])
        XCTAssertEqual(outcome.status, 2)
        let records = try objects(outcome)
        XCTAssertEqual(records.count, 2)
        XCTAssertTrue((records[0]["error"] as? String ?? "").contains("100000"), "\(records[0])")
        XCTAssertEqual(records[1]["text"] as? String, "PO-2026-00042")
    }

    func testUsageErrorsExit64() throws {
        XCTAssertEqual(try EdgeProcess.run(["scan"]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--symbology", "qr,pdf417", "--image", sample("po-code128.png")]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--passes", "wobble", "--image", sample("po-code128.png")]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--frobnicate"]).status, 64)
    }

    func testSymbologyRestriction() throws {
        let outcome = try EdgeProcess.run(["scan", "--json", "--symbology", "qr", "--image", sample("po-code128.png"), sample("linking-code.png")])
        XCTAssertEqual(outcome.status, 1)
        let records = try objects(outcome)
        XCTAssertEqual(records.map { $0["symbology"] as? String }, ["qr"])
    }

    func testHelpDocumentsExitStatus() throws {
        let outcome = try EdgeProcess.run(["scan", "--help"])
        XCTAssertEqual(outcome.status, 0)
        for needle in ["--image", "--json", "--symbology", "64", "no code"] {
            XCTAssertTrue(outcome.stdout.contains(needle), needle)
        }
    }

    func testWithoutConfigurationLinkingCodesAreNotRecognized() throws {
        let outcome = try EdgeProcess.run(["scan", "--json", "--image", sample("linking-code.png")])
        let record = try XCTUnwrap(try objects(outcome).first)
        XCTAssertEqual(record["class"] as? String, "linking-code")
        XCTAssertEqual(record["valid"] as? Bool, false)
        XCTAssertEqual(record["reason"] as? String, "This linking code is not recognized. Please verify you have the correct code and try again.")
    }

    /// Without --config the file is $EDGE_CONFIG's, found before anything else is built (issue
    /// #32), and it is still checked with the capabilities' sections (`ui` is the kiosk's), as
    /// `edge run` checks it (AGT-10).
    func testScanReadsTheFileNamedByEDGE_CONFIGAndChecksEveryCapabilitysSection() throws {
        let recognised = try EdgeProcess.run(["scan", "--image", sample("linking-code.png")], environment: ["EDGE_CONFIG": "samples/edge.json"])
        XCTAssertEqual(recognised.status, 0, recognised.stderr)
        XCTAssertEqual(recognised.lines, [#"samples/linking-code.png: qr "AB-7KX-M4PQR" linking-code"#])

        let config = tmp.appendingPathComponent("edge.json")
        try Data(#"{"ui": {"lisen": "127.0.0.1:8080"}}"#.utf8).write(to: config)
        let refused = try EdgeProcess.run(["scan", "--image", sample("linking-code.png")], environment: ["EDGE_CONFIG": config.path])
        XCTAssertEqual(refused.status, 2, refused.stdout)
        XCTAssertEqual(refused.stdout, "")
        XCTAssertTrue(refused.stderr.contains("\(config.path): ui.lisen: unknown key; did you mean ui.listen?"), refused.stderr)
    }

    func testBrokenConfigurationIsAClearError() throws {
        let bad = tmp.appendingPathComponent("edge.json")
        try Data("{\"sponsors\": [{\"prefix\": \"I1\"}]".utf8).write(to: bad)
        let outcome = try EdgeProcess.run(["scan", "--config", bad.path, "--image", sample("po-code128.png")])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertTrue(outcome.stderr.contains(bad.path), outcome.stderr)
    }

    func testControlCharactersInPayloadsCannotReachTheTerminal() throws {
        // A QR whose payload carries an ANSI escape and a fake second line.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/qrencode") else { throw XCTSkip("qrencode not installed") }
        let png = tmp.appendingPathComponent("evil.png")
        let made = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/qrencode"), ["-s", "6", "-o", png.path, "\u{1B}[2Jok\nfake.png: qr \"x\" unknown"])
        XCTAssertEqual(made.status, 0)
        let outcome = try EdgeProcess.run(["scan", "--image", png.path])
        XCTAssertEqual(outcome.lines.count, 1, outcome.stdout)
        XCTAssertFalse(outcome.stdout.contains("\u{1B}"))
        XCTAssertTrue(outcome.stdout.contains("\\u{1b}[2Jok\\u{a}fake.png"), outcome.stdout)
        let json = try EdgeProcess.run(["scan", "--json", "--image", png.path])
        let record = try XCTUnwrap(try objects(json).first)
        XCTAssertEqual(record["text"] as? String, "\u{1B}[2Jok\nfake.png: qr \"x\" unknown")
    }

    /// Issue #16: bidi controls and other invisible format characters are escaped like controls
    /// in text output (a U+202E override would show "gpj.exe" as "exe.jpg"); JSON keeps the text.
    func testBidiAndInvisibleFormatCharactersAreEscapedInTextOutput() throws {
        // qrencode is installed by .ci/install-deps: missing, this test fails rather than skips.
        let png = tmp.appendingPathComponent("bidi.png")
        let payload = "a\u{202E}gpj.exe\u{202C}b\u{2066}c\u{2069}d\u{200B}e\u{FEFF}f\u{200E}g\u{061C}h\u{2028}i"
        let made = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/qrencode"), ["-s", "6", "-o", png.path, payload])
        XCTAssertEqual(made.status, 0, made.stderr)
        let outcome = try EdgeProcess.run(["scan", "--image", png.path])
        XCTAssertEqual(outcome.lines.count, 1, outcome.stdout)
        for scalar in outcome.stdout.unicodeScalars {
            XCTAssertNotEqual(scalar.properties.generalCategory, .format, "U+\(String(scalar.value, radix: 16)) printed raw")
        }
        XCTAssertTrue(outcome.stdout.contains(#"a\u{202e}gpj.exe\u{202c}b\u{2066}c\u{2069}d\u{200b}e\u{feff}f\u{200e}g\u{61c}h\u{2028}i"#),
                      outcome.stdout)
        let json = try EdgeProcess.run(["scan", "--json", "--image", png.path])
        let record = try XCTUnwrap(try objects(json).first)
        XCTAssertEqual(record["text"] as? String, payload)
    }

    func testPhotoLikeSampleNeedsARotationPass() throws {
        let outcome = try EdgeProcess.run(["scan", "--json", "--budget-ms", "60000", "--image", sample("photo-like.jpg")])
        let record = try XCTUnwrap(try objects(outcome).first)
        XCTAssertEqual(record["text"] as? String, "PO-2026-00077")
        XCTAssertNotEqual(record["pass"] as? String, "plain")
    }

    func testOneSymbolOfAStructuredAppendSequenceIsMarkedAndNotTakenForAPayload() throws {
        // "PO-2026-00042" would be a purchase order; split over several symbols, the first holds
        // only part of it and must not be classified as one.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/qrencode") else { throw XCTSkip("qrencode not installed") }
        let made = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/qrencode"),
                                       ["-S", "-v", "1", "-l", "H", "-s", "4", "-o", tmp.appendingPathComponent("po.png").path, "PO-2026-00042"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let first = tmp.appendingPathComponent("po-01.png").path
        let outcome = try EdgeProcess.run(["scan", "--json", "--image", first])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let out = tmp.appendingPathComponent("partial.jsonl")
        try outcome.stdout.write(to: out, atomically: true, encoding: .utf8)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: out, against: "models/scan-result.schema.json"), 1)
        let record = try XCTUnwrap(try objects(outcome).first)
        XCTAssertEqual(record["partial_sequence"] as? Bool, true)
        XCTAssertEqual(record["class"] as? String, "unknown")
        XCTAssertEqual(record["valid"] as? Bool, false)
        XCTAssertTrue((record["text"] as? String).map { "PO-2026-00042".hasPrefix($0) } ?? false, "\(record)")
        let readable = try EdgeProcess.run(["scan", "--image", first])
        XCTAssertTrue(readable.stdout.contains("(part of a structured-append sequence)"), readable.stdout)
    }


    /// Code 39 Full ASCII (issue #15): `12ab` printed as Extended Code 39 reads as its text with
    /// the symbol characters in `raw_text`; --code39-full-ascii and edge.json's `scanning`
    /// section choose the rule.
    func testCode39FullASCIIIsDecodedAndTheRawTextKept() throws {
        let temporary = try TemporaryDirectory(prefix: "edge-c39")
        let dir = URL(fileURLWithPath: temporary.path)
        let image = try zint(["-b", "9", "-d", "12ab"], into: temporary, name: "c39.png")

        let auto = try EdgeProcess.run(["scan", "--json", "--image", image])
        XCTAssertEqual(auto.status, 0, auto.stderr)
        let record = try XCTUnwrap(try objects(auto).first)
        XCTAssertEqual(record["text"] as? String, "12ab")
        XCTAssertEqual(record["raw_text"] as? String, "12+A+B")
        let file = dir.appendingPathComponent("scan.jsonl")
        try Data(auto.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: "models/scan-result.schema.json"), 1)

        let raw = try EdgeProcess.run(["scan", "--json", "--code39-full-ascii", "raw", "--image", image])
        XCTAssertEqual(try objects(raw).first?["text"] as? String, "12+A+B")
        XCTAssertNil(try objects(raw).first?["raw_text"])

        let config = dir.appendingPathComponent("edge.json")
        try Data(#"{"scanning": {"code39_full_ascii": "raw"}}"#.utf8).write(to: config)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: config, against: "models/edge-config.schema.json", wholeFile: true), 1)
        XCTAssertEqual(try objects(try EdgeProcess.run(["scan", "--json", "--config", config.path, "--image", image])).first?["text"] as? String, "12+A+B")
        XCTAssertEqual(try EdgeProcess.run(["scan", "--code39-full-ascii", "sometimes", "--image", image]).status, 64)

        // The optional mod-43 check character (SCN-5): kept as data by default, verified and
        // stripped when required, and a label without one is then not a valid read.
        let checked = try zint(["-b", "8", "--vers=1", "-d", "ABC"], into: temporary, name: "checked.png")
        let unchecked = try zint(["-b", "8", "-d", "ABC"], into: temporary, name: "unchecked.png")
        XCTAssertEqual(try objects(try EdgeProcess.run(["scan", "--json", "--image", checked])).first?["text"] as? String, "ABCX")
        XCTAssertEqual(try objects(try EdgeProcess.run(["scan", "--json", "--code39-check-digit", "required", "--image", checked])).first?["text"] as? String, "ABC")
        XCTAssertEqual(try EdgeProcess.run(["scan", "--code39-check-digit", "required", "--image", unchecked]).status, 1)
    }

    /// Code 32 (issue #15): off by default (the Code 39 characters), read as the medicine number
    /// with `--symbology` or edge.json's `scanning.symbologies`, the characters in `raw_text`.
    func testCode32IsReadWhenTheStationAsksForIt() throws {
        let temporary = try TemporaryDirectory(prefix: "edge-c32")
        let dir = URL(fileURLWithPath: temporary.path)
        let image = try zint(["-b", "129", "-d", "12345678"], into: temporary, name: "c32.png")

        let standard = try objects(try EdgeProcess.run(["scan", "--json", "--image", image]))
        XCTAssertEqual(standard.first?["symbology"] as? String, "code39")
        XCTAssertEqual(standard.first?["text"] as? String, "3PRM8N")

        let asked = try EdgeProcess.run(["scan", "--json", "--symbology", "code39,code32", "--image", image])
        XCTAssertEqual(asked.status, 0, asked.stderr)
        let record = try XCTUnwrap(try objects(asked).first)
        XCTAssertEqual(record["symbology"] as? String, "code32")
        XCTAssertEqual(record["text"] as? String, "A123456788")
        XCTAssertEqual(record["raw_text"] as? String, "3PRM8N")
        XCTAssertEqual(record["class"] as? String, "unknown")
        let file = dir.appendingPathComponent("scan.jsonl")
        try Data(asked.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: "models/scan-result.schema.json"), 1)

        let config = dir.appendingPathComponent("edge.json")
        try Data(#"{"scanning": {"symbologies": ["qr", "code128", "code39", "ean13", "code32"]}}"#.utf8).write(to: config)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: config, against: "models/edge-config.schema.json", wholeFile: true), 1)
        XCTAssertEqual(try objects(try EdgeProcess.run(["scan", "--json", "--config", config.path, "--image", image])).first?["text"] as? String, "A123456788")
        // The CLI's --symbology wins over the station's list.
        XCTAssertEqual(try objects(try EdgeProcess.run(["scan", "--json", "--config", config.path, "--symbology", "code39", "--image", image])).first?["text"] as? String, "3PRM8N")

        try Data(#"{"scanning": {"symbologies": ["code93"]}}"#.utf8).write(to: config)
        let refused = try EdgeProcess.run(["scan", "--config", config.path, "--image", image])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("scanning.symbologies"), refused.stderr)
    }

    /// A symbol zint draws (with quiet zones, without text) into `directory`; the test fails,
    /// never skips, without zint, which .ci/install-deps installs.
    private func zint(_ arguments: [String], into directory: TemporaryDirectory, name: String) throws -> String {
        let path = directory.path + "/" + name
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zint") else {
            XCTFail("zint is not installed (apt-get install zint)")
            throw CocoaError(.fileNoSuchFile)
        }
        let run = try EdgeProcess.run(executable: URL(fileURLWithPath: "/usr/bin/zint"), arguments + ["--quietzones", "--notext", "-o", path])
        XCTAssertEqual(run.status, 0, run.stderr)
        return path
    }
}
