import Foundation
import XCTest

/// Runs the `openssl` command-line tool in a scratch directory: the independent implementation
/// the RS256 tests generate keys with and cross-check signatures against.
public struct OpenSSLTool: Sendable {
    public let directory: URL

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("edge-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs `openssl arguments`; returns the exit status (stderr is discarded, stdout too).
    @discardableResult
    public func run(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A fresh key pair: `key.pem` (PKCS#8) and `pub.pem`.
    public func generateKeyPair(bits: Int = 2048, name: String = "key") throws -> (privatePEM: [UInt8], publicPEM: [UInt8]) {
        XCTAssertEqual(try run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", path("\(name).pem")]), 0)
        XCTAssertEqual(try run(["pkey", "-in", path("\(name).pem"), "-pubout", "-out", path("\(name).pub.pem")]), 0)
        return (try read("\(name).pem"), try read("\(name).pub.pem"))
    }

    public func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }
    public func write(_ name: String, _ bytes: [UInt8]) throws { try Data(bytes).write(to: URL(fileURLWithPath: path(name))) }

    public func remove() { try? FileManager.default.removeItem(at: directory) }
}
