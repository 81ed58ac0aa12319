import CLibCrypto
import EdgeCore
@testable import EdgeCrypto
import Foundation
import XCTest

/// Issue #16: secrets out of core dumps. The kernel's own view is checked (prctl, the mapping's
/// VmFlags in /proc/self/smaps), not what the code believes.
final class DumpProtectionTests: XCTestCase {
    func testTheSeamMakesTheProcessNonDumpable() throws {
        // The test process is put back afterwards: a non-dumpable process's /proc entries belong
        // to root, which later tests of this process running unprivileged would trip over.
        defer { _ = edge_prctl_set_dumpable(1) }
        XCTAssertEqual(edge_prctl_get_dumpable(), 1, "the test runner starts dumpable")
        try DumpProtection.disableForProcess()
        XCTAssertEqual(edge_prctl_get_dumpable(), 0)
        XCTAssertFalse(try DumpProtection.processIsDumpable())
    }

    func testSecureBytesLiveInPagesLeftOutOfCoreDumps() throws {
        let secret = SecureBytes(Array("a-token-that-must-not-reach-a-core".utf8))
        XCTAssertTrue(secret.isExcludedFromDumps)
        let flags = try XCTUnwrap(try Self.vmFlags(containing: secret.storageAddress), "no mapping holds the bytes")
        XCTAssertTrue(flags.contains("dd"), "VmFlags \(flags): MADV_DONTDUMP is not set")
        // Copies made on write get their own excluded pages too.
        var copy = secret
        copy.withUnsafeMutableBytes { $0[0] = 0x41 }
        let copied = try XCTUnwrap(try Self.vmFlags(containing: copy.storageAddress))
        XCTAssertTrue(copied.contains("dd"), "VmFlags \(copied)")
        XCTAssertNotEqual(copy.storageAddress, secret.storageAddress)
    }

    func testSecureWipeZeroesTheArrayInPlace() {
        var bytes: [UInt8] = Array("plaintext".utf8)
        let address = bytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        SecureWipe.wipe(&bytes)
        XCTAssertEqual(bytes, [UInt8](repeating: 0, count: 9))
        XCTAssertEqual(bytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }, address, "wiped a copy, not the array")
    }

    /// The VmFlags line of the /proc/self/smaps entry whose range holds `address`.
    private static func vmFlags(containing address: UInt) throws -> [String]? {
        // PosixFile reads /proc files to their end (their stat size is 0).
        let smaps = String(decoding: try PosixFile.readAll(path: "/proc/self/smaps", maxBytes: 64 << 20), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return fields.dropFirst().map(String.init)
            }
        }
        return nil
    }
}
