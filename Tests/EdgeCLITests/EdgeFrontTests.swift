import EdgeTestSupport
import Foundation
import XCTest

/// The `edge` front (Sources/edge/EdgeFront.swift): still images without a configuration file are
/// decoded in its own process, exactly as edge-agent would print them; everything else is
/// edge-agent's, found beside the front or in ../libexec/edge, never elsewhere.
final class EdgeFrontTests: XCTestCase {
    private func agent() throws -> URL {
        try EdgeProcess.executable().deletingLastPathComponent().appendingPathComponent("edge-agent")
    }

    /// A copy of the front in a directory of its own: nothing to exec.
    private func loneFront() throws -> (directory: TemporaryDirectory, front: URL) {
        let directory = try temporaryDirectory(prefix: "edge-front")
        let front = directory.url.appendingPathComponent("edge")
        try FileManager.default.copyItem(at: try EdgeProcess.executable(), to: front)
        return (directory, front)
    }

    func testStillImagesWithoutAConfigurationAreDecodedByTheFrontAlone() throws {
        let (_, front) = try loneFront()
        let files = ["samples/po-code128.png", "samples/linking-code.png"]
        let outcome = try EdgeProcess.run(executable: front, ["scan", "--image"] + files)
        XCTAssertEqual(outcome.status, 0, outcome.stderr)
        guard outcome.lines.count == 2 else { return XCTFail("two lines expected: \(outcome.stdout)") }
        XCTAssertTrue(outcome.lines[0].hasPrefix("samples/po-code128.png: code128 \"PO-2026-00042\" purchase-order"), outcome.stdout)
        XCTAssertTrue(outcome.lines[1].hasPrefix("samples/linking-code.png: qr \"AB-7KX-M4PQR\" linking-code"), outcome.stdout)
    }

    func testTheFrontPrintsWhatTheAgentPrints() throws {
        let (_, front) = try loneFront()
        let forms: [[String]] = [
            ["scan", "--image", "samples/po-code128.png", "samples/corrupt.png", "samples/linking-code.png"],
            ["scan", "--json", "--image", "samples/po-code128.png", "samples/corrupt.png"],
            ["scan", "--image", "samples/linking-code.png", "--symbology", "code128"],
            ["scan", "--image", "samples/po-code128.png", "--passes", "plain,invert", "--budget-ms", "500", "--add-ons"],
            ["scan", "--image", "missing.png", "--json"],
        ]
        for arguments in forms {
            let mine = try EdgeProcess.run(executable: front, arguments)
            let agents = try EdgeProcess.run(executable: try agent(), arguments)
            XCTAssertFalse(mine.stderr.contains("edge-agent"), "\(arguments) went to the agent: \(mine.stderr)")
            XCTAssertEqual(mine.status, agents.status, "\(arguments)")
            XCTAssertEqual(mine.stdout, agents.stdout, "\(arguments)")
            XCTAssertEqual(mine.stderr, agents.stderr, "\(arguments)")
        }
    }

    /// A configuration file, help, usage errors, cameras and every other command need the agent;
    /// without one beside the front they fail with a reason instead of guessing.
    func testEverythingElseIsTheAgentsAndItsAbsenceIsAClearError() throws {
        let (directory, front) = try loneFront()
        let forms: [([String], [String: String])] = [
            (["--version"], [:]),
            (["status"], [:]),
            (["scan", "--config", "samples/edge.json", "--image", "samples/po-code128.png"], [:]),
            (["scan", "--image", "samples/po-code128.png"], ["EDGE_CONFIG": "samples/edge.json"]),
            (["scan", "--image", "samples/po-code128.png", "--symbology", "pdf417"], [:]),
            (["scan", "--image", "samples/po-code128.png", "--budget-ms", "-1"], [:]),
            (["scan", "--help"], [:]),
            (["scan"], [:]),
        ]
        for (arguments, environment) in forms {
            let outcome = try EdgeProcess.run(executable: front, arguments, environment: environment)
            XCTAssertEqual(outcome.status, 2, "\(arguments)")
            XCTAssertEqual(outcome.stdout, "", "\(arguments)")
            XCTAssertEqual(outcome.stderr, "edge: cannot start edge-agent, which runs every command but `edge scan --image`: "
                           + "not found at \(directory.path)/edge-agent or \(directory.path)/../libexec/edge/edge-agent\n", "\(arguments)")
        }
    }

    /// The Debian package's layout: /usr/bin/edge and /usr/libexec/edge/edge-agent.
    func testTheAgentIsFoundInLibexecAndRunsWithTheSameArguments() throws {
        let directory = try temporaryDirectory(prefix: "edge-front")
        let bin = directory.url.appendingPathComponent("bin"), libexec = directory.url.appendingPathComponent("libexec/edge")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try EdgeProcess.executable(), to: bin.appendingPathComponent("edge"))
        try FileManager.default.createSymbolicLink(at: libexec.appendingPathComponent("edge-agent"), withDestinationURL: try agent())
        let front = bin.appendingPathComponent("edge")

        let version = try EdgeProcess.run(executable: front, ["--version"])
        let agentVersion = try EdgeProcess.run(executable: try agent(), ["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, agentVersion.stdout)

        // With a configuration the agent checks it and scans: its classifier knows the sponsor.
        let configured = try EdgeProcess.run(executable: front, ["scan", "--config", "samples/edge.json", "--image", "samples/linking-code.png"])
        XCTAssertEqual(configured.status, 0, configured.stderr)
        XCTAssertEqual(configured.stdout, "samples/linking-code.png: qr \"AB-7KX-M4PQR\" linking-code\n")

        // A usage error is the agent's, with swift-argument-parser's message and status.
        let usage = try EdgeProcess.run(executable: front, ["scan", "--image", "a.png", "--frames", "3"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        XCTAssertTrue(usage.stderr.contains("--frames, --timeout, --until-found, --pixel-format and --size apply to --camera"), usage.stderr)
    }

    /// libzbar (and the 19 libraries Debian's build of it needs) is loaded by a process that
    /// scans, when it scans, not at the start of every `edge` (ZbarLibrary).
    func testOnlyAScanLoadsZbar() throws {
        let loads = ["LD_DEBUG": "files"]
        let version = try EdgeProcess.run(["--version"], environment: loads)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertTrue(version.stderr.contains("libc.so.6"), "LD_DEBUG shows the loader's work")
        XCTAssertFalse(version.stderr.contains("libzbar"), "edge --version loaded libzbar")
        let scan = try EdgeProcess.run(["scan", "--image", "samples/po-code128.png"], environment: loads)
        XCTAssertEqual(scan.status, 0, scan.stderr)
        XCTAssertTrue(scan.stderr.contains("libzbar.so.0"), "the scan loaded libzbar")
    }

    /// Something there but not runnable is the answer: no fall-through to another copy.
    func testAnAgentThatCannotRunIsNamed() throws {
        let (directory, front) = try loneFront()
        let broken = directory.url.appendingPathComponent("edge-agent")
        try Data("not a program\n".utf8).write(to: broken)
        let outcome = try EdgeProcess.run(executable: front, ["status"])
        XCTAssertEqual(outcome.status, 2)
        XCTAssertEqual(outcome.stderr, "edge: cannot start edge-agent, which runs every command but `edge scan --image`: "
                       + "\(directory.path)/edge-agent: Permission denied\n")
    }
}
