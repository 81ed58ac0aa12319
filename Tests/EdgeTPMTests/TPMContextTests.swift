import EdgeTestSupport
import EdgeTPM
import Foundation
import XCTest

/// Seal/unseal against a real swtpm, one fresh TPM (new state directory) per test.
final class TPMContextTests: XCTestCase {
    private var tpm: Swtpm?

    override class func setUp() {
        super.setUp()
        // The expected failures below would each make tpm2-tss print ERROR lines; silence its
        // logger for this test process (the library itself reads no environment variable).
        setenv("TSS2_LOG", "all+NONE", 1)
    }

    override func setUpWithError() throws {
        tpm = try Swtpm()
    }

    override func tearDown() {
        tpm?.stop()
        tpm = nil
        super.tearDown()
    }

    private func context() throws -> TPMContext {
        try TPMContext(tcti: XCTUnwrap(tpm).tcti)
    }

    private func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private func assertCode<T>(_ expected: TPMErrorCode, _ expression: @autoclosure () throws -> T,
                               _ label: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try expression(), label, file: file, line: line) { error in
            XCTAssertEqual((error as? TPMError)?.code, expected, "\(label): \(error)", file: file, line: line)
        }
    }

    // MARK: - Round trips

    func testSealUnsealRoundTripAtEverySupportedSizeBoundary() throws {
        let tpm = try context()
        for size in [32, 1, 128] {
            let secret = random(size)
            let blob = try tpm.seal(secret)
            XCTAssertEqual(try tpm.unseal(blob), secret, "size \(size)")
            if size >= 8 {  // a shorter random secret can occur in any blob by chance
                XCTAssertNil(blob.firstRange(of: secret), "size \(size): the blob holds the plaintext")
            }
        }
    }

    func testSecretSizesOutsideOneTo128AreRefused() throws {
        let tpm = try context()
        assertCode(.invalidArgument, try tpm.seal(random(129)), "129")
        assertCode(.invalidArgument, try tpm.seal([]), "0")
        assertCode(.invalidArgument, try tpm.seal(random(32), pcrs: [24]), "pcr 24")
        assertCode(.invalidArgument, try tpm.extendPCR(16, with: random(31)), "31-byte digest")
        assertCode(.invalidArgument, try tpm.extendPCR(-1, with: random(32)), "pcr -1")
    }

    func testBlobSurvivesSwtpmRestartOnTheSameStateDirectory() throws {
        let swtpm = try XCTUnwrap(tpm)
        let secret = random(32)
        let blob = try TPMContext(tcti: swtpm.tcti).seal(secret)
        swtpm.stop()
        try swtpm.start()
        XCTAssertEqual(try TPMContext(tcti: swtpm.tcti).unseal(blob), secret)
    }

    /// Records every command and response with tpm2-tss's pcap TCTI wrapped around the swtpm
    /// one: the secret must not appear in the capture (parameter encryption on Create and
    /// Unseal), while a PCR-extend digest, which is sent in clear, must (the capture works).
    func testSecretNeverCrossesTheTPMInterfaceInClear() throws {
        let swtpm = try XCTUnwrap(tpm)
        let capture = swtpm.directory.appendingPathComponent("wire.pcap")
        setenv("TCTI_PCAP_FILE", capture.path, 1)  // read by the pcap TCTI when it is initialised
        let secret = random(32)
        let marker = random(32)
        do {
            let tpm = try TPMContext(tcti: "pcap:" + swtpm.tcti)
            try tpm.extendPCR(16, with: marker)
            XCTAssertEqual(try tpm.unseal(tpm.seal(secret)), secret)
            XCTAssertEqual(try tpm.unseal(tpm.seal(secret, pcrs: [16])), secret)
        }  // deinit finalises the TCTI, which closes the capture file
        let wire = try [UInt8](Data(contentsOf: capture))
        XCTAssertNotNil(wire.firstRange(of: marker), "the capture recorded nothing useful")
        XCTAssertNil(wire.firstRange(of: secret), "the secret crossed the TPM interface in clear")
        XCTAssertNil(wire.firstRange(of: Array(secret.prefix(8))), "part of the secret crossed in clear")
    }

    // MARK: - Tampering and wrong TPM

    func testFlippedBitInEveryRegionIsRefused() throws {
        let tpm = try context()
        let blob = try tpm.seal(random(32), pcrs: [16])
        for (region, range) in BlobRegions(blob).all {
            for offset in Set([range.lowerBound, (range.lowerBound + range.upperBound) / 2, range.upperBound - 1]) {
                var damaged = blob
                damaged[offset] ^= 0x10
                XCTAssertThrowsError(try tpm.unseal(damaged), "\(region) @\(offset)") { error in
                    let code = (error as? TPMError)?.code
                    let expected: TPMErrorCode = region == "version" ? .unsupportedBlobVersion : .blobCorrupt
                    XCTAssertEqual(code, expected, "\(region) @\(offset): \(error)")
                }
            }
        }
        XCTAssertEqual(try tpm.unseal(blob).count, 32, "the undamaged blob still opens afterwards")
    }

    /// A blob altered with its checksum fixed up gets past the parser; the TPM's own checks
    /// (the Name comparison, Load's integrity HMAC) must still refuse every change.
    func testTamperingWithARecomputedChecksumIsRefusedByTheTPM() throws {
        let tpm = try context()
        let secret = random(32)
        let blob = try tpm.seal(secret)
        let regions = BlobRegions(blob)
        var byCode: [TPMErrorCode: Int] = [:]
        for (region, range) in [("primaryName", regions.primaryName), ("objectPublic", regions.objectPublic),
                                ("objectPrivate", regions.objectPrivate)] {
            for offset in range {
                var damaged = blob
                damaged[offset] ^= 1 << UInt8(offset % 8)
                BlobRegions.resealChecksum(&damaged)
                do {
                    let opened = try tpm.unseal(damaged)
                    XCTFail("\(region) @\(offset) unsealed \(opened == secret ? "the secret" : "garbage")")
                } catch {
                    let code = error.code
                    byCode[code, default: 0] += 1
                    let allowed: Set<TPMErrorCode> = region == "primaryName" ? [.wrongTPM, .blobCorrupt] : [.blobCorrupt]
                    XCTAssertTrue(allowed.contains(code), "\(region) @\(offset): \(error) \(error.context)")
                }
            }
        }
        XCTAssertEqual(try tpm.unseal(blob), secret)
    }

    func testBlobFromAnotherTPMIsWrongTPM() throws {
        let blob = try context().seal(random(32))
        let other = try Swtpm()
        defer { other.stop() }
        let otherTPM = try TPMContext(tcti: other.tcti)
        assertCode(.wrongTPM, try otherTPM.unseal(blob))
    }

    // MARK: - PCR binding

    func testPCRBoundSealFailsAfterThePCRIsExtended() throws {
        let tpm = try context()
        let secret = random(32)
        let blob = try tpm.seal(secret, pcrs: [16, 23])
        XCTAssertEqual(try tpm.unseal(blob), secret)
        try tpm.extendPCR(23, with: random(32))
        assertCode(.pcrMismatch, try tpm.unseal(blob))
        // A new seal binds to the new values.
        let resealed = try tpm.seal(secret, pcrs: [16, 23])
        XCTAssertEqual(try tpm.unseal(resealed), secret)
    }

    func testUnboundSealIsUnaffectedByPCRExtends() throws {
        let tpm = try context()
        let secret = random(32)
        let blob = try tpm.seal(secret)
        for index in [0, 7, 16, 23] { try tpm.extendPCR(index, with: random(32)) }
        XCTAssertEqual(try tpm.unseal(blob), secret)
    }

    // MARK: - Handles and TCTI

    /// swtpm has no resource manager: a leaked object or session per call exhausts its slots by
    /// the third. Failure paths (wrong PCRs, wrong TPM, TPM-detected tampering) run in the loop too.
    func testTwentyCyclesIncludingFailuresLeakNoHandles() throws {
        let tpm = try context()
        let foreign = try Swtpm()
        defer { foreign.stop() }
        let foreignBlob = try TPMContext(tcti: foreign.tcti).seal(random(16))
        for cycle in 0..<20 {
            let secret = random(32)
            let bound = cycle % 2 == 0
            let blob = try tpm.seal(secret, pcrs: bound ? [16] : [])
            XCTAssertEqual(try tpm.unseal(blob), secret, "cycle \(cycle)")
            switch cycle % 4 {
            case 0:
                try tpm.extendPCR(16, with: random(32))
                assertCode(.pcrMismatch, try tpm.unseal(blob), "cycle \(cycle)")
            case 1:
                assertCode(.wrongTPM, try tpm.unseal(foreignBlob), "cycle \(cycle)")
            default:
                var damaged = blob
                let privateArea = BlobRegions(blob).objectPrivate
                damaged[privateArea.upperBound - 1] ^= 0x01
                BlobRegions.resealChecksum(&damaged)
                assertCode(.blobCorrupt, try tpm.unseal(damaged), "cycle \(cycle)")
            }
        }
    }

    func testMissingSocketIsTctiUnavailableWithAOneLineMessage() throws {
        let tcti = "swtpm:path=/nonexistent/edge-tpm-test.sock"
        XCTAssertThrowsError(try TPMContext(tcti: tcti)) { error in
            guard let error = error as? TPMError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.code, .tctiUnavailable)
            XCTAssertTrue(error.message.contains(tcti), error.message)
            XCTAssertFalse(error.message.contains("\n"), error.message)
            XCTAssertNotNil(error.context["rc"])
        }
        assertCode(.invalidArgument, try TPMContext(tcti: ""))
    }

    func testUnknownVersionIsRefusedWithoutTalkingToTheTPM() throws {
        let swtpm = try XCTUnwrap(tpm)
        let tpm = try context()
        var blob = try tpm.seal(random(32))
        blob[4] = 9
        BlobRegions.resealChecksum(&blob)
        swtpm.stop()  // any TPM call would now fail with unsealFailure instead
        assertCode(.unsupportedBlobVersion, try tpm.unseal(blob))
    }
}
