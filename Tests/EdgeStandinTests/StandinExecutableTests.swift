import EdgeContract
import EdgeStandin
import Foundation
import XCTest

/// `edge-standin` as a process: banner with the port, serving, clean exit on SIGTERM and SIGINT.
final class StandinExecutableTests: XCTestCase {
    /// The executable beside this test bundle (same build folder); `swift build --build-tests`
    /// builds both.
    private func executable() throws -> URL {
        let url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("edge-standin")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            // A failure, not a skip (issue #16): CI builds it, so its absence is a broken build.
            return try XCTUnwrap(nil, "edge-standin is not built beside the tests (\(url.path)); run swift build --build-tests")
        }
        return url
    }

    func testServesUntilSignalledAndExitsCleanly() async throws {
        for signal in [SIGTERM, SIGINT] {
            let process = Process()
            process.executableURL = try executable()
            process.arguments = ["--port", "0", "--token", "T", "--control", "--seed-demo-data"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let banner = try await firstLine(of: output)
            XCTAssertTrue(banner.hasPrefix("edge-standin: a STAND-IN backend for tests and demos (not a production server) listening on http://127.0.0.1:"), banner)
            let port = try XCTUnwrap(banner.split(separator: ":").last.flatMap { Int($0) }, banner)

            let answer = try await StandinClient(port: port, token: "T").post(APIPath.scanBarcode, ScanLookupRequest(value: DemoData.openOrder)).response()
            XCTAssertEqual(answer.status, 200)
            let control = try await StandinClient(port: port, token: nil).get(StandinControlPath.faults).response()
            XCTAssertEqual(control.status, 200)

            kill(process.processIdentifier, signal)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            XCTAssertFalse(process.isRunning, "still running 10 s after signal \(signal)")
            if process.isRunning {
                process.terminate()
            } else {
                XCTAssertEqual(process.terminationReason, .exit)
                XCTAssertEqual(process.terminationStatus, 0)
            }
        }
    }

    func testGeneratesADemoServiceAccountOnceAndTrustsItAfter() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-standin-sa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("sa.json").path
        var contents: [Data] = []
        for _ in 0..<2 {
            let process = Process()
            process.executableURL = try executable()
            process.arguments = ["--port", "0", "--fcm-service-account", path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            _ = try await firstLine(of: output)
            let second = try await firstLine(of: output)
            XCTAssertTrue(second.hasPrefix("edge-standin: FCM stand-in on"), second)
            XCTAssertFalse(second.contains("PRIVATE KEY"))
            contents.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            process.terminate()
            process.waitUntilExit()
        }
        XCTAssertEqual(contents[0], contents[1], "an existing account is read, never overwritten")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let account = try XCTUnwrap(try JSONSerialization.jsonObject(with: contents[0]) as? [String: String])
        XCTAssertEqual(account["type"], "service_account")
        XCTAssertEqual(account["project_id"], StandinServiceAccount.demoProjectID)
        XCTAssertTrue(account["private_key"]?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        XCTAssertTrue(account["token_uri"]?.hasPrefix("http://127.0.0.1:") == true)
        // What it wrote loads as the key it trusts.
        XCTAssertEqual(try StandinServiceAccount.load(path: path).clientEmail, StandinServiceAccount.demoClientEmail)
    }

    func testRejectsUsageErrors() throws {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["--port", "70000"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
    }

    private func firstLine(of pipe: Pipe) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while true {
                    let data = pipe.fileHandleForReading.readData(ofLength: 1)
                    guard let byte = data.first else {
                        continuation.resume(throwing: RawHTTPClient.Failure(description: "edge-standin printed no banner: \(String(decoding: bytes, as: UTF8.self))"))
                        return
                    }
                    if byte == UInt8(ascii: "\n") { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}
