import CTSS
import XCTest
@testable import EdgeTPM

/// Blob parsing and the pure helpers; none of these needs a TPM.
final class SealedBlobTests: XCTestCase {
    func testCRC32MatchesTheStandardCheckValue() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926)
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    func testEncodeDecodeRoundTrip() throws {
        let blob = try sample(mask: 0x0001_0001).encoded()
        XCTAssertEqual(Array(blob[0..<5]), Array("ETPM".utf8) + [1])
        XCTAssertEqual(Array(blob[5..<9]), [0, 1, 0, 1])
        let decoded = try SealedBlob(decoding: blob)
        XCTAssertEqual(decoded.pcrs.mask, 0x0001_0001)
        XCTAssertEqual(try decoded.encoded(), blob)
    }

    func testUnknownVersionIsRefusedEvenWithAValidChecksum() throws {
        var blob = try sample(mask: 0).encoded()
        blob[4] = 2
        BlobRegions.resealChecksum(&blob)
        XCTAssertThrowsError(try SealedBlob(decoding: blob)) { error in
            XCTAssertEqual((error as? TPMError)?.code, .unsupportedBlobVersion)
        }
    }

    func testBadMagicTruncationTrailingBytesAndMaskAreCorrupt() throws {
        let good = try sample(mask: 0).encoded()
        var badMagic = good
        badMagic[0] = UInt8(ascii: "X")
        BlobRegions.resealChecksum(&badMagic)
        var trailing = Array(good.dropLast(4)) + [0, 0, 0, 0, 0]
        BlobRegions.resealChecksum(&trailing)
        var highPCR = good
        highPCR[5] = 0x01  // bit 24: PCR 24
        BlobRegions.resealChecksum(&highPCR)
        for (label, blob) in [("magic", badMagic), ("trailing", trailing), ("pcr24", highPCR), ("empty", [])] {
            XCTAssertThrowsError(try SealedBlob(decoding: blob), label) { error in
                XCTAssertEqual((error as? TPMError)?.code, .blobCorrupt, label)
            }
        }
        for length in 0..<good.count {
            XCTAssertThrowsError(try SealedBlob(decoding: Array(good.prefix(length))), "prefix \(length)")
        }
    }

    /// Tss2_MU_TPM2B_PUBLIC_Unmarshal ignores the outer size field; the canonical re-encoding
    /// check must catch a blob whose only change is there.
    func testNonCanonicalPublicSizeIsCorrupt() throws {
        var blob = try sample(mask: 0).encoded()
        let sizeLow = BlobRegions(blob).objectPublic.lowerBound + 1
        blob[sizeLow] ^= 0x40
        BlobRegions.resealChecksum(&blob)
        XCTAssertThrowsError(try SealedBlob(decoding: blob)) { error in
            XCTAssertEqual((error as? TPMError)?.code, .blobCorrupt)
        }
    }

    func testEveryFlippedBitFailsTheChecksumBeforeTheTPM() throws {
        let blob = try sample(mask: 0x10000).encoded()
        for bit in 0..<(blob.count * 8) {
            var damaged = blob
            damaged[bit / 8] ^= 1 << UInt8(bit % 8)
            XCTAssertThrowsError(try SealedBlob(decoding: damaged)) { error in
                let code = (error as? TPMError)?.code
                XCTAssertTrue(code == .blobCorrupt || code == .unsupportedBlobVersion, "bit \(bit): \(String(describing: code))")
            }
        }
    }

    func testPCRSelectionValidation() throws {
        XCTAssertEqual(try PCRSelection(indices: [0, 16, 23]).mask, 0x0081_0001)
        for bad in [[24], [-1], [3, 3]] {
            XCTAssertThrowsError(try PCRSelection(indices: bad)) { error in
                XCTAssertEqual((error as? TPMError)?.code, .invalidArgument)
            }
        }
        XCTAssertNil(PCRSelection(mask: 0x0100_0000))
    }

    func testResponseCodeClassification() {
        // TPM_RC_INTEGRITY on parameter 1 (0x1DF) and TPM_RC_POLICY_FAIL on session 1 (0x99D).
        XCTAssertEqual(TPMResponseCode(0x1DF).base, TPMResponseCode.integrity)
        XCTAssertTrue(TPMResponseCode(0x1DF).isParameterError)
        XCTAssertEqual(TPMResponseCode(0x99D).base, TPMResponseCode.policyFail)
        XCTAssertFalse(TPMResponseCode(0x99D).isParameterError)
        XCTAssertTrue(TPMResponseCode(0x1DF).isFromTPM)
        XCTAssertFalse(TPMResponseCode(0x000A_000A).isFromTPM)
        XCTAssertEqual(TPMResponseCode(0x1DF).hex, "0x000001df")
    }

    /// A structurally valid blob with made-up contents.
    private func sample(mask: UInt32) throws -> SealedBlob {
        var name = TPM2B_NAME()
        name.size = CBuffer.store([0x00, 0x0B] + [UInt8](repeating: 0xAB, count: 32), into: &name.name)
        var objectPublic = TPM2B_PUBLIC()
        objectPublic.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_KEYEDHASH)
        objectPublic.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        objectPublic.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMI_ALG_KEYEDHASH_SCHEME(TPM2_ALG_NULL)
        var objectPrivate = TPM2B_PRIVATE()
        objectPrivate.size = CBuffer.store([UInt8](repeating: 0x5A, count: 48), into: &objectPrivate.buffer)
        let pcrs = try XCTUnwrap(PCRSelection(mask: mask))
        return SealedBlob(pcrs: pcrs, primaryName: name, objectPublic: objectPublic, objectPrivate: objectPrivate)
    }
}
