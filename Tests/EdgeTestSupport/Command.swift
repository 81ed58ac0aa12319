import EdgeCore
import Foundation

/// Runs a program (looked up on PATH) and returns its stdout; throws with its stderr on failure.
public enum Command {
    /// A program that exited non-zero, with its stderr.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    @discardableResult
    public static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) throws -> Data {
        let outcome = try capture(arguments, input: input, in: directory)
        guard outcome.status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited \(outcome.status): \(String(decoding: outcome.stderr, as: UTF8.self))")
        }
        return outcome.stdout
    }

    /// Runs a program (looked up on PATH) to its end, whatever its status: the status and both
    /// outputs. `input` goes to its stdin (else stdin is empty); `environment` replaces this one.
    public static func capture(_ arguments: [String], input: Data? = nil, in directory: URL? = nil,
                               environment: [String: String]? = nil) throws -> (status: Int32, stdout: Data, stderr: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        // stderr is drained on its own thread while stdout is read: a child that fills the stderr
        // pipe (a validator printing the whole schema with its failure) would otherwise wait
        // forever for a reader that is waiting for its stdout to end.
        let errorsRead = Locked(Data())
        let drained = DispatchSemaphore(value: 0)
        let errorHandle = stderr.fileHandleForReading
        Thread.detachNewThread {
            errorsRead.set(errorHandle.readDataToEndOfFile())
            drained.signal()
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        return (process.terminationStatus, output, errorsRead.get())
    }

    /// `run` through `sh -c`, for pipelines.
    public static func shell(_ script: String, in directory: URL? = nil) throws -> String {
        String(decoding: try run(["sh", "-c", script], in: directory), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether `program` is on PATH.
    public static func exists(_ program: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(program)"])) != nil
    }
}
