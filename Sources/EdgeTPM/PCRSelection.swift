import CTSS

/// A set of PCR indices in the SHA-256 bank, kept as a bit mask (bit i = PCR i) because that is
/// how it is stored in the sealed blob.
struct PCRSelection: Sendable, Hashable {
    /// PCRs 0...23: the set every PC-client TPM implements (TPM2_PCR_SELECT_MAX allows more,
    /// but a blob naming PCR 24+ could not be unsealed on a typical TPM).
    static let indexRange = 0...23
    static let validMask: UInt32 = 0x00FF_FFFF

    let mask: UInt32

    init(indices: [Int]) throws(TPMError) {
        var mask: UInt32 = 0
        for index in indices {
            guard Self.indexRange.contains(index) else {
                throw TPMError(.invalidArgument, "PCR index \(index) is outside 0...23",
                               context: ["pcr": "\(index)"])
            }
            let bit = UInt32(1) << UInt32(index)
            guard mask & bit == 0 else {
                throw TPMError(.invalidArgument, "PCR index \(index) is listed twice",
                               context: ["pcr": "\(index)"])
            }
            mask |= bit
        }
        self.mask = mask
    }

    /// From a stored mask; nil when bits outside 0...23 are set.
    init?(mask: UInt32) {
        guard mask & ~Self.validMask == 0 else { return nil }
        self.mask = mask
    }

    var isEmpty: Bool { mask == 0 }

    /// TPML_PCR_SELECTION with one TPMS_PCR_SELECTION for the SHA-256 bank; sizeofSelect is 3
    /// bytes (24 PCRs), the minimum every TPM accepts.
    var list: TPML_PCR_SELECTION {
        var list = TPML_PCR_SELECTION()
        list.count = 1
        list.pcrSelections.0.hash = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        list.pcrSelections.0.sizeofSelect = 3
        list.pcrSelections.0.pcrSelect.0 = UInt8(truncatingIfNeeded: mask)
        list.pcrSelections.0.pcrSelect.1 = UInt8(truncatingIfNeeded: mask >> 8)
        list.pcrSelections.0.pcrSelect.2 = UInt8(truncatingIfNeeded: mask >> 16)
        return list
    }
}
