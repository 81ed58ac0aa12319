import EdgeTestSupport
import Foundation
import XCTest

/// `edge cameras` and `edge scan --camera`: usage errors on any host; the vivid device in the
/// VM (.ci/vivid-vm) when EDGE_TEST_CAMERA is set.
final class CameraCLITests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = try temporaryDirectory(prefix: "edge-camera-cli").url
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try EdgeProcess.run(["scan", "--camera", "/dev/video0", "--image", "samples/x.png"]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--image", "samples/x.png", "--frames", "3"]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--camera", "/dev/video0", "--frames", "0"]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--camera", "/dev/video0", "--size", "640"]).status, 64)
        XCTAssertEqual(try EdgeProcess.run(["scan", "--camera", "/dev/video0", "--pixel-format", "MJPG"]).status, 64)
    }

    /// The `cameras` section (HW-4): a valid one passes the schema and is accepted; a bad one
    /// stops the run with the configuration's path and the reason before any camera is opened.
    func testCamerasSectionIsValidated() throws {
        let good = tmp.appendingPathComponent("good.json")
        try Data(#"{"cameras": [{"usb": "046d:0825", "format": "YUYV", "width": 1280, "height": 720, "buffers": 3, "controls": {"focus_automatic_continuous": 0, "focus_absolute": 40}}]}"#.utf8).write(to: good)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: good, against: "models/edge-config.schema.json", wholeFile: true), 1)
        let missing = try EdgeProcess.run(["scan", "--config", good.path, "--camera", "/dev/edge-no-such-camera", "--frames", "1"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("does not exist"), "the configuration was accepted, the camera is missing: \(missing.stderr)")
        for bad in [#"{"cameras": [{"usb": "046d:0825", "format": "MJPG"}]}"#, #"{"cameras": [{"usb": "046d:0825", "buffers": 9}]}"#,
                    #"{"cameras": [{"format": "YUYV"}]}"#] {
            let file = tmp.appendingPathComponent("bad.json")
            try Data(bad.utf8).write(to: file)
            let outcome = try EdgeProcess.run(["scan", "--config", file.path, "--camera", "/dev/edge-no-such-camera", "--frames", "1"])
            XCTAssertEqual(outcome.status, 2, bad)
            XCTAssertTrue(outcome.stderr.contains(file.path) && outcome.stderr.contains("camera"), "\(bad): \(outcome.stderr)")
            XCTAssertFalse(outcome.stderr.contains("does not exist"), "stopped before opening: \(outcome.stderr)")
        }
    }

    func testMissingCameraIsAnUnreadableInput() throws {
        let outcome = try EdgeProcess.run(["scan", "--json", "--camera", "/dev/edge-no-such-camera", "--frames", "1"])
        XCTAssertEqual(outcome.status, 2)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["file"] as? String, "/dev/edge-no-such-camera")
        XCTAssertTrue((object["error"] as? String ?? "").contains("does not exist"), "\(object)")
    }

    func testCamerasListsVividValidAgainstTheSchema() throws {
        guard let node = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        try Vivid.useWebcamInput(node)
        let outcome = try EdgeProcess.run(["cameras", "--json", "--controls"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let file = tmp.appendingPathComponent("cameras.jsonl")
        try Data(outcome.stdout.utf8).write(to: file)
        XCTAssertGreaterThan(try SchemaValidator.validate(jsonLines: file, against: "models/cameras.schema.json"), 0)
        let objects = outcome.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let vivid = try XCTUnwrap(objects.first { $0["node"] as? String == node })
        XCTAssertEqual(vivid["driver"] as? String, "vivid")
        let formats = try XCTUnwrap(vivid["formats"] as? [[String: Any]])
        XCTAssertTrue(formats.contains { $0["fourcc"] as? String == "YUYV" && ($0["sizes"] as? [String] ?? []).contains("640x480") })
        let readable = try EdgeProcess.run(["cameras"])
        XCTAssertTrue(readable.stdout.contains("\(node): \""), readable.stdout)
    }

    /// Two cameras in one `edge scan`: each runs its own capture and gets its own summary.
    func testScanTwoCameras() throws {
        guard let node = Vivid.capture, let second = Vivid.secondCapture else { throw XCTSkip("EDGE_TEST_CAMERA(_2) is not set") }
        try Vivid.useWebcamInput(node)
        try Vivid.useWebcamInput(second)
        let outcome = try EdgeProcess.run(["scan", "--camera", node, "--camera", second, "--size", "320x180", "--frames", "10"])
        XCTAssertEqual(outcome.status, 1, "colour bars hold no code: \(outcome.stderr)")
        XCTAssertTrue(outcome.stderr.contains("\(node): 10 frames"), outcome.stderr)
        XCTAssertTrue(outcome.stderr.contains("\(second): 10 frames"), outcome.stderr)
    }

    /// The end-to-end test: a code written to vivid's output comes back on the capture node and
    /// `edge scan --camera` reports it once, classified, in the image output format.
    func testScanCameraReadsTheLoopedCode() throws {
        guard let node = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        let loop = try Vivid.startLoop(capture: node, frame: Vivid.qrFrameYUYV("PO-2024-00042"))
        defer { Vivid.stopLoop(loop) }
        let outcome = try EdgeProcess.run(["scan", "--json", "--camera", node, "--pixel-format", "YUYV", "--size", "640x480", "--frames", "40"])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        XCTAssertEqual(outcome.lines.count, 1, "a code in every frame is reported once (SCN-7): \(outcome.stdout)")
        let file = tmp.appendingPathComponent("scan.jsonl")
        try Data(outcome.stdout.utf8).write(to: file)
        XCTAssertEqual(try SchemaValidator.validate(jsonLines: file, against: "models/scan-result.schema.json"), 1)
        let line = try XCTUnwrap(outcome.lines.first)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(record["file"] as? String, node)
        XCTAssertEqual(record["text"] as? String, "PO-2024-00042")
        XCTAssertEqual(record["class"] as? String, "purchase-order")
        XCTAssertNotNil(record["latency_ms"] as? Double)
        XCTAssertTrue(outcome.stderr.contains("40 frames"), outcome.stderr)
        let readable = try EdgeProcess.run(["scan", "--camera", node, "--pixel-format", "YUYV", "--size", "640x480", "--until-found", "--timeout", "60"])
        XCTAssertEqual(readable.status, 0, readable.stderr)
        // A purchase order in a QR code is reported as such and flagged (they are printed as 1D codes).
        XCTAssertTrue(readable.stdout.hasPrefix("\(node): qr \"PO-2024-00042\" purchase-order"), readable.stdout)
        XCTAssertEqual(readable.lines.count, 1, readable.stdout)
    }

    /// ENR-2, ENR-5: a coordinator holds the linking code's QR to the camera; `edge enroll
    /// --camera` reads it and links with the stand-in portal, never printing the code.
    func testEnrollReadsTheLinkingCodeFromTheCamera() throws {
        guard let node = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        let standin = try StandinProcess(token: "vivid-clinic", extraArguments: ["--seed-demo-data"])
        let config = tmp.appendingPathComponent("edge.json").path
        try Data("""
            {"station": {"role": "clinic", "state_dir": "\(tmp.path)", "vault_backend": "keyfile"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "\(standin.baseURL)"}]}
            """.utf8).write(to: URL(fileURLWithPath: config))
        let loop = try Vivid.startLoop(capture: node, frame: Vivid.qrFrameYUYV("AB-7KX-M4PQR"))
        defer { Vivid.stopLoop(loop) }
        let outcome = try EdgeProcess.run(["enroll", "--camera", node, "--pixel-format", "YUYV", "--size", "640x480", "--timeout", "60",
                                           "--json", "--config", config], environment: ["EDGE_STATE_DIR": tmp.path])
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(document["state"] as? String, "STUDY_START_PENDING")
        XCTAssertEqual(document["patient_id"] as? String, "pat-7d41c2e0")
        XCTAssertTrue(outcome.stderr.contains("read a linking code for sponsor prefix AB"), outcome.stderr)
        XCTAssertFalse((outcome.stdout + outcome.stderr).contains("7KX"), "the code was printed")
    }
}
