import EdgeCore

/// Errors from the TPM half of the vault's `tpm2` backend. `context` carries the failing C
/// function, the TSS2_RC in hex and its `Tss2_RC_Decode` text; never secret or blob bytes.
public typealias TPMError = CodedError<TPMErrorCode>

public enum TPMErrorCode: String, Sendable, Hashable {
    /// The TCTI could not be loaded or could not reach the TPM (no device, no socket), or the
    /// tpm2-tss libraries themselves are not installed (`context["function"]` dlopen or dlsym).
    case tctiUnavailable
    /// A TPM or ESAPI call failed while sealing.
    case sealFailure
    /// A TPM or ESAPI call failed while unsealing, for a reason other than those below.
    case unsealFailure
    /// The blob is damaged: truncated, bad magic, checksum mismatch, unmarshal failure, or the
    /// TPM's own integrity check on Load failed although the blob names this TPM's primary.
    case blobCorrupt
    /// The blob's version byte is not one this build reads (refused before any TPM call).
    case unsupportedBlobVersion
    /// The blob was sealed under another TPM's storage primary (another TPM, or this TPM after
    /// its owner hierarchy was cleared).
    case wrongTPM
    /// The blob is bound to PCR values that no longer hold (TPM_RC_POLICY_FAIL on Unseal).
    case pcrMismatch
    /// A caller-supplied value is out of range (secret size, PCR index, digest size).
    case invalidArgument
    /// A TPM call made outside seal/unseal failed (PCR extend).
    case commandFailure
}
