import Foundation
import EdgeTestSupport
import XCTest

/// Runs the built `edge` executable as a child process, the way operators and scripts do.
struct EdgeProcess {
    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = packageRoot.appendingPathComponent("samples")

    /// The `edge` binary next to the test bundle (SwiftPM builds it because the tests depend on it).
    static func executable() throws -> URL {
        var dir = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = dir.appendingPathComponent("edge")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let fallback = packageRoot.appendingPathComponent(".build/debug/edge")
        guard FileManager.default.isExecutableFile(atPath: fallback.path) else {
            // A failure, not a skip (issue #16): without the executable no command test ran.
            throw SetupFailure("edge executable not found next to the tests (\(fallback.path)); run swift build --build-tests")
        }
        return fallback
    }

    static func run(_ arguments: [String], environment: [String: String] = [:], cwd: URL = packageRoot, input: Data? = nil) throws -> Outcome {
        try run(executable: executable(), arguments, environment: environment, cwd: cwd, input: input)
    }

    static func run(executable: URL, _ arguments: [String], environment: [String: String] = [:], cwd: URL = packageRoot,
                    input: Data? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = cwd
        var env = ProcessInfo.processInfo.environment
        env["EDGE_CONFIG"] = nil
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let inPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
        // Read both pipes before waiting so a chatty child cannot block on a full pipe.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                       stderr: String(decoding: errData, as: UTF8.self))
    }
}
