import EdgeTPM

extension CodedError where Code == VaultErrorCode {
    /// A TPM failure in vault terms (VLT-4: a specific, clear error for each way it can fail).
    init(from tpm: TPMError) {
        let code: VaultErrorCode
        switch tpm.code {
        case .tctiUnavailable: code = .tpmUnavailable
        case .wrongTPM: code = .wrongTPM
        case .pcrMismatch: code = .pcrMismatch
        case .blobCorrupt, .unsupportedBlobVersion: code = .tampered
        case .sealFailure, .unsealFailure, .invalidArgument, .commandFailure: code = .tpmFailure
        }
        self.init(code, tpm.message, context: tpm.context)
    }
}
