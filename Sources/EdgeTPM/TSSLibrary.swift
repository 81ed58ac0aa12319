import CTSS
import EdgeCore
import Glibc

/// The tpm2-tss libraries (ESAPI, the TCTI loader, response-code decoding, marshalling), loaded
/// with `dlopen` the first time a TPM context or sealed blob is made, and the functions EdgeTPM
/// calls, resolved with `dlsym`.
///
/// Decision: not linked. Debian builds tpm2-tss and libcrypto (which ESAPI needs) with BIND_NOW,
/// so linking them makes the dynamic loader map them and resolve ~5,500 relocations at every
/// start of `edge`: ~1.0 ms measured (1.9 -> 2.9 ms for a trivial program), a large share of
/// `edge scan --image`'s whole run (SCN-12). Only the vault's `tpm2` backend uses them. Every
/// name below is a real exported function (none is a macro), checked with `nm -D`.
struct TSSLibrary: @unchecked Sendable {
    // @unchecked: function pointers into libraries that are never unloaded.

    /// Debian 12's sonames and the packages that ship them. ESAPI brings libtss2-sys and
    /// libcrypto in as its own dependencies.
    static let esysSoname = "libtss2-esys.so.0"
    static let tctiLoaderSoname = "libtss2-tctildr.so.0"
    static let responseCodeSoname = "libtss2-rc.so.0"
    static let marshalSoname = "libtss2-mu.so.0"

    // TCTI loader (libtss2-tctildr).
    let tctiLdrInitialize: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?) -> TSS2_RC
    let tctiLdrFinalize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void

    // ESAPI (libtss2-esys).
    let esysInitialize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?, OpaquePointer?, UnsafeMutablePointer<TSS2_ABI_VERSION>?) -> TSS2_RC
    let esysFinalize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let esysFree: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let esysCreatePrimary: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_SENSITIVE_CREATE>?, UnsafePointer<TPM2B_PUBLIC>?,
        UnsafePointer<TPM2B_DATA>?, UnsafePointer<TPML_PCR_SELECTION>?, UnsafeMutablePointer<ESYS_TR>?,
        UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_PUBLIC>?>?, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_CREATION_DATA>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_DIGEST>?>?, UnsafeMutablePointer<UnsafeMutablePointer<TPMT_TK_CREATION>?>?
    ) -> TSS2_RC
    let esysCreate: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_SENSITIVE_CREATE>?, UnsafePointer<TPM2B_PUBLIC>?,
        UnsafePointer<TPM2B_DATA>?, UnsafePointer<TPML_PCR_SELECTION>?, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_PRIVATE>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_PUBLIC>?>?, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_CREATION_DATA>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_DIGEST>?>?, UnsafeMutablePointer<UnsafeMutablePointer<TPMT_TK_CREATION>?>?
    ) -> TSS2_RC
    let esysLoad: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_PRIVATE>?, UnsafePointer<TPM2B_PUBLIC>?,
        UnsafeMutablePointer<ESYS_TR>?
    ) -> TSS2_RC
    let esysUnseal: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?>?
    ) -> TSS2_RC
    let esysPCRExtend: @convention(c) (OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPML_DIGEST_VALUES>?) -> TSS2_RC
    let esysTRGetName: @convention(c) (OpaquePointer?, ESYS_TR, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_NAME>?>?) -> TSS2_RC
    let esysStartAuthSession: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_NONCE>?, TPM2_SE,
        UnsafePointer<TPMT_SYM_DEF>?, TPMI_ALG_HASH, UnsafeMutablePointer<ESYS_TR>?
    ) -> TSS2_RC
    let esysTRSessSetAttributes: @convention(c) (OpaquePointer?, ESYS_TR, TPMA_SESSION, TPMA_SESSION) -> TSS2_RC
    let esysPolicyPCR: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafePointer<TPM2B_DIGEST>?, UnsafePointer<TPML_PCR_SELECTION>?
    ) -> TSS2_RC
    let esysPolicyGetDigest: @convention(c) (
        OpaquePointer?, ESYS_TR, ESYS_TR, ESYS_TR, ESYS_TR, UnsafeMutablePointer<UnsafeMutablePointer<TPM2B_DIGEST>?>?
    ) -> TSS2_RC
    let esysFlushContext: @convention(c) (OpaquePointer?, ESYS_TR) -> TSS2_RC

    // Response-code text (libtss2-rc) and marshalling (libtss2-mu).
    let rcDecode: @convention(c) (TSS2_RC) -> UnsafePointer<CChar>?
    let marshalName: @convention(c) (UnsafePointer<TPM2B_NAME>?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?) -> TSS2_RC
    let unmarshalName: @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<TPM2B_NAME>?) -> TSS2_RC
    let marshalPublic: @convention(c) (UnsafePointer<TPM2B_PUBLIC>?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?) -> TSS2_RC
    let unmarshalPublic: @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<TPM2B_PUBLIC>?) -> TSS2_RC
    let marshalPrivate: @convention(c) (UnsafePointer<TPM2B_PRIVATE>?, UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?) -> TSS2_RC
    let unmarshalPrivate: @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<Int>?, UnsafeMutablePointer<TPM2B_PRIVATE>?) -> TSS2_RC

    /// The process's one copy, or why it could not be loaded.
    static let shared: Result<TSSLibrary, TPMError> = load()

    /// The sonames are parameters only so a test can show what a missing library reports.
    static func load(esys: String = esysSoname, tctiLoader: String = tctiLoaderSoname,
                     responseCodes: String = responseCodeSoname, marshal: String = marshalSoname) -> Result<TSSLibrary, TPMError> {
        // `.tctiUnavailable`, which the vault reports as "TPM unavailable": without the TSS
        // there is no way to reach the TPM.
        func open(_ soname: String, package: String) throws(TPMError) -> SharedLibrary<TPMErrorCode> {
            try SharedLibrary(soname, role: "TPM library", package: package, code: .tctiUnavailable)
        }
        do {
            return .success(try TSSLibrary(
                esys: try open(esys, package: "libtss2-esys-3.0.2-0"),
                tctiLoader: try open(tctiLoader, package: "libtss2-tctildr0"),
                responseCodes: try open(responseCodes, package: "libtss2-rc0"),
                marshal: try open(marshal, package: "libtss2-mu0")))
        } catch {
            return .failure(error)
        }
    }

    private init(esys: SharedLibrary<TPMErrorCode>, tctiLoader: SharedLibrary<TPMErrorCode>,
                 responseCodes: SharedLibrary<TPMErrorCode>, marshal: SharedLibrary<TPMErrorCode>) throws(TPMError) {
        func tctiLoaderFunction<F>(_ name: String) throws(TPMError) -> F { try tctiLoader.function(name) }
        func esysFunction<F>(_ name: String) throws(TPMError) -> F { try esys.function(name) }
        func marshalFunction<F>(_ name: String) throws(TPMError) -> F { try marshal.function(name) }

        tctiLdrInitialize = try tctiLoaderFunction("Tss2_TctiLdr_Initialize")
        tctiLdrFinalize = try tctiLoaderFunction("Tss2_TctiLdr_Finalize")

        esysInitialize = try esysFunction("Esys_Initialize")
        esysFinalize = try esysFunction("Esys_Finalize")
        esysFree = try esysFunction("Esys_Free")
        esysCreatePrimary = try esysFunction("Esys_CreatePrimary")
        esysCreate = try esysFunction("Esys_Create")
        esysLoad = try esysFunction("Esys_Load")
        esysUnseal = try esysFunction("Esys_Unseal")
        esysPCRExtend = try esysFunction("Esys_PCR_Extend")
        esysTRGetName = try esysFunction("Esys_TR_GetName")
        esysStartAuthSession = try esysFunction("Esys_StartAuthSession")
        esysTRSessSetAttributes = try esysFunction("Esys_TRSess_SetAttributes")
        esysPolicyPCR = try esysFunction("Esys_PolicyPCR")
        esysPolicyGetDigest = try esysFunction("Esys_PolicyGetDigest")
        esysFlushContext = try esysFunction("Esys_FlushContext")

        rcDecode = try responseCodes.function("Tss2_RC_Decode")
        marshalName = try marshalFunction("Tss2_MU_TPM2B_NAME_Marshal")
        unmarshalName = try marshalFunction("Tss2_MU_TPM2B_NAME_Unmarshal")
        marshalPublic = try marshalFunction("Tss2_MU_TPM2B_PUBLIC_Marshal")
        unmarshalPublic = try marshalFunction("Tss2_MU_TPM2B_PUBLIC_Unmarshal")
        marshalPrivate = try marshalFunction("Tss2_MU_TPM2B_PRIVATE_Marshal")
        unmarshalPrivate = try marshalFunction("Tss2_MU_TPM2B_PRIVATE_Unmarshal")
    }
}
