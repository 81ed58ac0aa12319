import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import EdgeTestSupport
import XCTest

/// The stand-in backend (`edge-standin`) as a child process on 127.0.0.1, with its control API
/// on, for tests that need the server to outlive the agent processes they kill.
///
/// Decision (issue #16): a stand-in that is not built, does not come up or refuses a control call
/// fails the test (a thrown `SetupFailure`), never skips it: a skip here silently dropped the crash
/// proofs and the command tests from CI.
final class StandinProcess {

    let process = Process()
    let port: Int
    let scheme: String
    var baseURL: String { "\(scheme)://127.0.0.1:\(port)" }

    init(token: String, extraArguments: [String] = []) throws {
        let executable = try EdgeProcess.executable().deletingLastPathComponent().appendingPathComponent("edge-standin")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw SetupFailure("edge-standin is not built next to the tests (\(executable.path)); run swift build --build-tests")
        }
        process.executableURL = executable
        process.arguments = ["--port", "0", "--token", token, "--control"] + extraArguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The banner names the port it bound.
        var seen = ""
        let handle = out.fileHandleForReading
        var found: Int?
        let deadline = Date().addingTimeInterval(20)
        while found == nil, Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
            if let range = seen.range(of: #"https?://127\.0\.0\.1:([0-9]+)"#, options: .regularExpression) {
                found = Int(seen[range].split(separator: ":").last ?? "")
            }
        }
        guard let found else {
            process.terminate()
            throw SetupFailure("edge-standin did not report its port: \(seen)")
        }
        port = found
        scheme = extraArguments.contains("--tls-cert") ? "https" : "http"
        // Keep draining stdout so the stand-in never blocks on a full pipe.
        handle.readabilityHandler = { $0.availableData.isEmpty ? ($0.readabilityHandler = nil) : () }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// A control call; returns the body. Control paths are never faulted.
    @discardableResult
    func control(_ method: String, _ path: String, json: String? = nil) throws -> Data {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: (Data?, URLResponse?, (any Error)?) = (nil, nil, nil)
        URLSession.shared.dataTask(with: request) { data, response, error in
            result = (data, response, error)
            done.signal()
        }.resume()
        done.wait()
        if let error = result.2 { throw error }
        let status = (result.1 as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw SetupFailure("stand-in control \(method) \(path) answered \(status)")
        }
        return result.0 ?? Data()
    }

    /// Random faults on sync pushes (refuse, delay, drop, drop before apply, 503, double answer)
    /// for the crash proofs; returns the seed, which a failing test prints.
    @discardableResult
    func injectRandomPushFaults(probability: Double) throws -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64.max, using: &generator)
        try control("POST", "/_standin/faults", json: """
            {"random": {"seed": \(seed), "probability": \(probability), "path_prefix": "/api/sync/push",
                        "kinds": ["refuse", "delay", "drop", "dropBeforeApply", "status", "double"],
                        "parameters": {"delay_ms": 40, "status": 503, "retry_after": "0"}}}
            """)
        return seed
    }
}
