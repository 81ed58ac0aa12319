import CTSS

/// A TSS2_RC split into the parts callers classify on. TPM 2.0 Part 2, 6.6: a response code
/// from the TPM itself has layer 0; format-1 codes (bit 7 set) carry the handle, session or
/// parameter number in bits 8...11 (and bit 6), which must be masked off before comparing
/// with constants such as TPM2_RC_INTEGRITY.
struct TPMResponseCode: Sendable, Hashable {
    let raw: TSS2_RC

    // tss2_tpm2_types.h defines these as `(TPM2_RC_FMT1 + n)` / `(TPM2_RC_VER1 + n)`, which Swift's
    // macro importer rejects ("structure not supported"); they are rebuilt from the bases it does import.
    /// TPM2_RC_INTEGRITY: an HMAC or integrity check failed (e.g. the private area on Load).
    static let integrity = UInt32(TPM2_RC_FMT1) + 0x01F
    /// TPM2_RC_POLICY_FAIL: the session's policy digest does not match the object's authPolicy.
    static let policyFail = UInt32(TPM2_RC_FMT1) + 0x01D
    /// TPM2_RC_PCR_CHANGED: a PCR changed between PolicyPCR and the command it authorises.
    static let pcrChanged = UInt32(TPM2_RC_VER1) + 0x028

    init(_ raw: TSS2_RC) { self.raw = raw }

    /// True when the code came from the TPM (not from ESAPI, SAPI, MU or the TCTI).
    /// (TSS2_RC_LAYER_MASK is a function-like macro Swift cannot import; it is bits 16...23.)
    var isFromTPM: Bool { raw & 0x00FF_0000 == 0 }

    /// The error number with layer and handle/session/parameter fields removed.
    var base: UInt32 {
        // Format 1: keep bit 7 and the 6-bit number (0xBF drops the P bit and the N field);
        // format 0: the 12-bit code.
        let code = raw & 0xFFFF
        return code & UInt32(TPM2_RC_FMT1) != 0 ? code & 0xBF : code & 0xFFF
    }

    /// True for a format-1 code that names a parameter (TPM2_RC_P), e.g. a bad inPublic on Load.
    var isParameterError: Bool { raw & 0xFFFF & UInt32(TPM2_RC_FMT1) != 0 && raw & UInt32(TPM2_RC_P) != 0 }

    /// "0x0000099d"-style hex, stable for logs and error context.
    var hex: String {
        let digits = String(raw, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// `Tss2_RC_Decode` text. The C function returns a thread-local buffer, so it is copied at once.
    /// A code only exists once a TSS call ran, so the library is loaded; if not, "unknown".
    var decoded: String {
        guard case .success(let tss) = TSSLibrary.shared, let text = tss.rcDecode(raw) else { return "unknown" }
        return String(cString: text)
    }
}
