@testable import EdgeTPM

/// The byte ranges of a version-1 sealed blob (see `SealedBlob`), found by walking its TPM2B
/// size fields, so tests can damage each region on purpose.
struct BlobRegions {
    let magic = 0..<4
    let version = 4..<5
    let pcrMask = 5..<9
    let primaryName: Range<Int>
    let objectPublic: Range<Int>
    let objectPrivate: Range<Int>
    let checksum: Range<Int>

    init(_ blob: [UInt8]) {
        func tpm2b(at start: Int) -> Range<Int> {
            start..<(start + 2 + (Int(blob[start]) << 8 | Int(blob[start + 1])))
        }
        primaryName = tpm2b(at: 9)
        objectPublic = tpm2b(at: primaryName.upperBound)
        objectPrivate = tpm2b(at: objectPublic.upperBound)
        checksum = objectPrivate.upperBound..<blob.count
    }

    var all: [(name: String, range: Range<Int>)] {
        [("magic", magic), ("version", version), ("pcrMask", pcrMask), ("primaryName", primaryName),
         ("objectPublic", objectPublic), ("objectPrivate", objectPrivate), ("checksum", checksum)]
    }

    /// Rewrites the trailing CRC so a modification reaches the TPM instead of the checksum check.
    static func resealChecksum(_ blob: inout [UInt8]) {
        let body = blob.count - 4
        let crc = CRC32.checksum(blob[0..<body])
        for index in 0..<4 { blob[body + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(index))) }
    }
}
