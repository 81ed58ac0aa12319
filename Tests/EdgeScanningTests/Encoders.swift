import EdgeImaging
import Foundation
import XCTest

/// Codes drawn by the real encoders Debian ships (zint, qrencode), loaded as gray images.
enum Encoders {
    /// The image zint draws for `arguments` (PNG on stdout, no human-readable text).
    static func zint(_ arguments: [String]) throws -> GrayImage {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/zint"), "zint is not installed (apt-get install zint)")
        let data = try run("zint", ["--direct", "--filetype=png", "--notext"] + arguments)
        return try ImageLoader.load(data: data, name: "zint \(arguments.joined(separator: " "))")
    }

    /// The images qrencode draws for `text`: one, or one per symbol of a structured-append
    /// sequence when `arguments` hold `-S`.
    static func qrencode(_ arguments: [String], _ text: String) throws -> [GrayImage] {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/qrencode"), "qrencode is not installed (apt-get install qrencode)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("edge-qrencode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try run("qrencode", arguments + ["-o", dir.appendingPathComponent("code.png").path, text])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".png") }.sorted()
        return try names.map { try ImageLoader.load(path: dir.appendingPathComponent($0).path) }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool): " + String(decoding: message, as: UTF8.self))
        return data
    }
}
