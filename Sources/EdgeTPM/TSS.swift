import CTSS

/// The one seam through which every ESAPI, TCTI-loader and MU call passes: it runs the call,
/// and turns a TSS2_RC other than TSS2_RC_SUCCESS into a `TPMError` whose context names the C
/// function, the code in hex and its `Tss2_RC_Decode` text. `classify` lets a caller map
/// specific TPM response codes (integrity, policy failure) to more precise error codes.
enum TSS {
    /// The tpm2-tss libraries, loaded on first use; a `.tctiUnavailable` naming the soname and
    /// the Debian package when they cannot be loaded.
    static var library: TSSLibrary {
        get throws(TPMError) { try TSSLibrary.shared.get() }
    }

    static func call(
        _ function: StaticString,
        _ failure: TPMErrorCode,
        _ message: @autoclosure () -> String,
        classify: (TPMResponseCode) -> (code: TPMErrorCode, message: String)? = { _ in nil },
        _ body: () -> TSS2_RC
    ) throws(TPMError) {
        let rc = body()
        guard rc != TSS2_RC(TSS2_RC_SUCCESS) else { return }
        let response = TPMResponseCode(rc)
        let (code, text) = classify(response) ?? (failure, message())
        throw TPMError(code, text, context: [
            "function": "\(function)",
            "rc": response.hex,
            "decoded": response.decoded,
        ])
    }
}
