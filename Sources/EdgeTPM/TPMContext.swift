import CTSS
import EdgeCore

/// An ESAPI connection to one TPM, and the seal/unseal operations of the vault's `tpm2` backend.
///
/// Not Sendable: an ESYS_CONTEXT must not be used from two threads at once; make one per task.
/// Every transient handle (primary, loaded object, sessions) is flushed before each method
/// returns, on every path, because a TPM without a resource manager (swtpm, /dev/tpm0) has only
/// about three object and three session slots and a leaked handle exhausts them.
public final class TPMContext {
    /// The TCTI configuration string this context was opened with (e.g. "swtpm:path=/run/tpm.sock").
    public let tcti: String
    private let esys: OpaquePointer
    private let tctiContext: OpaquePointer
    /// Loaded by the first context (`TSSLibrary`), then shared by every one.
    private let tss: TSSLibrary

    /// The largest secret a TPM seals: MAX_SYM_DATA, 128 bytes in TPM 2.0 Part 2 (TPM2B_SENSITIVE_DATA).
    public static let maximumSecretSize = 128

    /// Opens the TCTI named by `tcti` (Tss2_TctiLdr_Initialize) and an ESAPI context on it
    /// (Esys_Initialize); the first context loads the TSS libraries (`.tctiUnavailable` if they
    /// are not installed). The string comes from configuration; nothing is read from the environment.
    public init(tcti: String = "device:/dev/tpmrm0") throws(TPMError) {
        guard !tcti.isEmpty else {
            // Tss2_TctiLdr treats "" as "probe the defaults", which would hide a configuration error.
            throw TPMError(.invalidArgument, "the TCTI configuration is empty")
        }
        let tss = try TSS.library
        var loaded: OpaquePointer?
        try TSS.call("Tss2_TctiLdr_Initialize", .tctiUnavailable, "TPM not reachable through TCTI \"\(tcti)\"") {
            tss.tctiLdrInitialize(tcti, &loaded)
        }
        guard let loaded else {
            throw TPMError(.tctiUnavailable, "TPM not reachable through TCTI \"\(tcti)\"")
        }
        var context: OpaquePointer?
        do {
            try TSS.call("Esys_Initialize", .tctiUnavailable, "cannot open ESAPI on TCTI \"\(tcti)\"") {
                tss.esysInitialize(&context, loaded, nil)
            }
        } catch {
            var owned: OpaquePointer? = loaded
            tss.tctiLdrFinalize(&owned)
            throw error
        }
        guard let context else {
            var owned: OpaquePointer? = loaded
            tss.tctiLdrFinalize(&owned)
            throw TPMError(.tctiUnavailable, "cannot open ESAPI on TCTI \"\(tcti)\"")
        }
        self.tcti = tcti
        self.tss = tss
        self.tctiContext = loaded
        self.esys = context
    }

    deinit {
        // ESAPI must go first: Esys_Finalize still uses the TCTI it was given.
        var context: OpaquePointer? = esys
        tss.esysFinalize(&context)
        var loaded: OpaquePointer? = tctiContext
        tss.tctiLdrFinalize(&loaded)
    }

    // MARK: - Public operations

    /// Seals `secret` (1...128 bytes) to this TPM: Esys_CreatePrimary (owner hierarchy, see
    /// `ObjectTemplates.storagePrimary`), then Esys_Create of a KEYEDHASH sealed-data object whose
    /// sensitive data is `secret`, through an HMAC session salted with the primary that encrypts
    /// the command's first parameter (the sensitive data) with AES-128-CFB. With `pcrs`, the object
    /// gets a PolicyPCR auth policy over the current SHA-256 values of those PCRs (computed in a
    /// trial session) and cannot be unsealed with its auth value.
    ///
    /// - Returns: the versioned blob described in `SealedBlob`; it holds no plaintext.
    public func seal(_ secret: [UInt8], pcrs: [Int] = []) throws(TPMError) -> [UInt8] {
        guard (1...Self.maximumSecretSize).contains(secret.count) else {
            throw TPMError(.invalidArgument, "a TPM can seal 1...\(Self.maximumSecretSize) bytes, not \(secret.count)",
                           context: ["size": "\(secret.count)"])
        }
        let selection = try PCRSelection(indices: pcrs)

        let primary = try createPrimary(failure: .sealFailure)
        defer { flush(primary) }
        let primaryName = try name(of: primary, failure: .sealFailure)
        let policy = selection.isEmpty ? nil : try pcrPolicyDigest(selection)

        let session = try startSession(TPM2_SE_HMAC, saltedWith: primary, failure: .sealFailure)
        defer { flush(session) }
        try setAttributes(of: session, TPMA_SESSION_DECRYPT, failure: .sealFailure)

        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { Zeroize.wipe(&sensitive) }
        // The outer size is left 0: Tss2_MU computes it when marshalling a TPM2B of a structure.
        sensitive.sensitive.data.size = CBuffer.store(secret, into: &sensitive.sensitive.data.buffer)
        var template = ObjectTemplates.sealedObject(policyDigest: policy)
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var outPrivate: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var outPublic: UnsafeMutablePointer<TPM2B_PUBLIC>?
        defer {
            tss.esysFree(outPrivate)
            tss.esysFree(outPublic)
        }
        try TSS.call("Esys_Create", .sealFailure, "the TPM refused to seal the secret") {
            tss.esysCreate(esys, primary, session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive, &template,
                        &outsideInfo, &creationPCR, &outPrivate, &outPublic, nil, nil, nil)
        }
        guard let outPrivate, let outPublic else {
            throw TPMError(.sealFailure, "Esys_Create returned no object", context: ["function": "Esys_Create"])
        }
        return try SealedBlob(pcrs: selection, primaryName: primaryName,
                              objectPublic: outPublic.pointee, objectPrivate: outPrivate.pointee).encoded()
    }

    /// Unseals a blob from `seal`. The blob is parsed and checked before the TPM is asked; then the
    /// primary is recreated (its Name must match the blob's, else `wrongTPM`), the object is loaded
    /// (Esys_Load; an integrity failure means `blobCorrupt`), and Esys_Unseal runs through a session
    /// salted with the primary that encrypts the response (the secret) with AES-128-CFB: an HMAC
    /// session, or for a PCR-bound blob a policy session satisfied with Esys_PolicyPCR (a PCR that
    /// changed since sealing gives `pcrMismatch`).
    ///
    /// - Returns: the secret. The caller owns it and should wipe it after use.
    public func unseal(_ blob: [UInt8]) throws(TPMError) -> [UInt8] {
        let sealed = try SealedBlob(decoding: blob)

        let primary = try createPrimary(failure: .unsealFailure)
        defer { flush(primary) }
        let primaryName = try name(of: primary, failure: .unsealFailure)
        guard Self.bytes(of: primaryName) == Self.bytes(of: sealed.primaryName) else {
            throw TPMError(.wrongTPM, "the sealed blob belongs to another TPM (or this TPM's owner hierarchy was cleared)")
        }

        // The parent's auth is empty and Load's inputs are already encrypted and HMAC'd, so a
        // password session is enough here; the salted session is kept for the secret itself.
        var inPrivate = sealed.objectPrivate
        var inPublic = sealed.objectPublic
        var object = ESYS_TR(ESYS_TR_NONE)
        try TSS.call("Esys_Load", .unsealFailure, "the TPM could not load the sealed object",
                     classify: Self.classifyLoadFailure) {
            tss.esysLoad(esys, primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &inPrivate, &inPublic, &object)
        }
        defer { flush(object) }

        let type = sealed.pcrs.isEmpty ? TPM2_SE_HMAC : TPM2_SE_POLICY
        let session = try startSession(type, saltedWith: primary, failure: .unsealFailure)
        defer { flush(session) }
        if !sealed.pcrs.isEmpty {
            try policyPCR(session, sealed.pcrs, failure: .unsealFailure)
        }
        try setAttributes(of: session, TPMA_SESSION_ENCRYPT, failure: .unsealFailure)

        var outData: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        defer {
            if let outData {
                Zeroize.wipe(UnsafeMutableRawBufferPointer(start: outData, count: MemoryLayout<TPM2B_SENSITIVE_DATA>.size))
            }
            tss.esysFree(outData)
        }
        try TSS.call("Esys_Unseal", .unsealFailure, "the TPM refused to unseal the secret",
                     classify: Self.classifyUnsealFailure) {
            tss.esysUnseal(esys, object, session, ESYS_TR_NONE, ESYS_TR_NONE, &outData)
        }
        guard let outData else {
            throw TPMError(.unsealFailure, "Esys_Unseal returned no data", context: ["function": "Esys_Unseal"])
        }
        let count = Int(outData.pointee.size)
        return withUnsafeMutablePointer(to: &outData.pointee.buffer) { CBuffer.load(from: $0, count: count) }
    }

    /// Extends PCR `index` (0...23) of the SHA-256 bank with `digest` (32 bytes): Esys_PCR_Extend.
    /// For tests and status; the vault itself never extends PCRs.
    public func extendPCR(_ index: Int, with digest: [UInt8]) throws(TPMError) {
        guard PCRSelection.indexRange.contains(index) else {
            throw TPMError(.invalidArgument, "PCR index \(index) is outside 0...23", context: ["pcr": "\(index)"])
        }
        guard digest.count == 32 else {
            throw TPMError(.invalidArgument, "a SHA-256 PCR extend takes 32 bytes, not \(digest.count)",
                           context: ["size": "\(digest.count)"])
        }
        var values = TPML_DIGEST_VALUES()
        values.count = 1
        values.digests.0.hashAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        _ = CBuffer.store(digest, into: &values.digests.0.digest.sha256)
        // ESYS_TR_PCR0...ESYS_TR_PCR31 are consecutive.
        let pcr = ESYS_TR(ESYS_TR_PCR0) + ESYS_TR(index)
        try TSS.call("Esys_PCR_Extend", .commandFailure, "could not extend PCR \(index)") {
            tss.esysPCRExtend(esys, pcr, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &values)
        }
    }

    // MARK: - ESAPI steps

    /// Esys_CreatePrimary under the owner hierarchy (empty owner auth, so a password session).
    private func createPrimary(failure: TPMErrorCode) throws(TPMError) -> ESYS_TR {
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var template = ObjectTemplates.storagePrimary
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var primary = ESYS_TR(ESYS_TR_NONE)
        try TSS.call("Esys_CreatePrimary", failure, "could not create the TPM storage primary") {
            tss.esysCreatePrimary(esys, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
                               &sensitive, &template, &outsideInfo, &creationPCR, &primary, nil, nil, nil, nil)
        }
        return primary
    }

    /// Esys_TR_GetName: the object's Name (nameAlg || H(public area)), which identifies the primary.
    private func name(of handle: ESYS_TR, failure: TPMErrorCode) throws(TPMError) -> TPM2B_NAME {
        var name: UnsafeMutablePointer<TPM2B_NAME>?
        defer { tss.esysFree(name) }
        try TSS.call("Esys_TR_GetName", failure, "could not read the TPM object's name") {
            tss.esysTRGetName(esys, handle, &name)
        }
        guard let name else {
            throw TPMError(failure, "Esys_TR_GetName returned no name", context: ["function": "Esys_TR_GetName"])
        }
        return name.pointee
    }

    /// Esys_StartAuthSession with `tpmKey` = the primary, so the session key is salted with a
    /// secret only this TPM can decrypt (ECDH to the primary), and AES-128-CFB for parameter encryption.
    private func startSession(_ type: TPM2_SE, saltedWith key: ESYS_TR, failure: TPMErrorCode) throws(TPMError) -> ESYS_TR {
        try startSession(type, tpmKey: key, cipher: ObjectTemplates.sessionCipher, failure: failure)
    }

    private func startSession(_ type: TPM2_SE, tpmKey: ESYS_TR, cipher: TPMT_SYM_DEF,
                              failure: TPMErrorCode) throws(TPMError) -> ESYS_TR {
        var symmetric = cipher
        var session = ESYS_TR(ESYS_TR_NONE)
        try TSS.call("Esys_StartAuthSession", failure, "could not start a TPM session") {
            tss.esysStartAuthSession(esys, tpmKey, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                                  nil, type, &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &session)
        }
        return session
    }

    /// Esys_TRSess_SetAttributes: `encryption` plus continueSession, so the TPM never closes the
    /// session behind ESAPI's back and the explicit flush stays the one place it ends.
    private func setAttributes(of session: ESYS_TR, _ encryption: TPMA_SESSION, failure: TPMErrorCode) throws(TPMError) {
        try TSS.call("Esys_TRSess_SetAttributes", failure, "could not configure the TPM session") {
            tss.esysTRSessSetAttributes(esys, session, encryption | TPMA_SESSION(TPMA_SESSION_CONTINUESESSION), 0xFF)
        }
    }

    /// Esys_PolicyPCR with an empty pcrDigest: the TPM folds in the PCRs' current values, so the
    /// session's digest equals the object's authPolicy only while they are unchanged.
    private func policyPCR(_ session: ESYS_TR, _ selection: PCRSelection, failure: TPMErrorCode) throws(TPMError) {
        var current = TPM2B_DIGEST()
        var list = selection.list
        try TSS.call("Esys_PolicyPCR", failure, "could not apply the PCR policy") {
            tss.esysPolicyPCR(esys, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &current, &list)
        }
    }

    /// The authPolicy for a PCR-bound object: PolicyPCR in a trial session, then Esys_PolicyGetDigest.
    private func pcrPolicyDigest(_ selection: PCRSelection) throws(TPMError) -> [UInt8] {
        let trial = try startSession(TPM2_SE_TRIAL, tpmKey: ESYS_TR(ESYS_TR_NONE),
                                     cipher: ObjectTemplates.noCipher, failure: .sealFailure)
        defer { flush(trial) }
        try policyPCR(trial, selection, failure: .sealFailure)
        var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
        defer { tss.esysFree(digest) }
        try TSS.call("Esys_PolicyGetDigest", .sealFailure, "could not compute the PCR policy") {
            tss.esysPolicyGetDigest(esys, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &digest)
        }
        guard let digest else {
            throw TPMError(.sealFailure, "Esys_PolicyGetDigest returned no digest", context: ["function": "Esys_PolicyGetDigest"])
        }
        return CBuffer.load(digest.pointee.buffer, count: Int(digest.pointee.size))
    }

    /// Esys_FlushContext. Runs from `defer`, where nothing can be thrown and the caller's own error
    /// (if any) is the one worth reporting; a handle is ESYS_TR_NONE only if it was never created.
    private func flush(_ handle: ESYS_TR) {
        guard handle != ESYS_TR(ESYS_TR_NONE) else { return }
        _ = try? TSS.call("Esys_FlushContext", .commandFailure, "could not flush a TPM handle") {
            tss.esysFlushContext(esys, handle)
        }
    }

    // MARK: - Response-code classification

    /// The blob passed its checksum and names this TPM's primary, so a TPM parameter error on
    /// Load (TPM_RC_INTEGRITY on the private area's HMAC, TPM_RC_SIZE, ...) means the blob was
    /// altered in a way that kept the checksum valid.
    private static func classifyLoadFailure(_ rc: TPMResponseCode) -> (code: TPMErrorCode, message: String)? {
        guard rc.isFromTPM else { return nil }
        guard rc.isParameterError || rc.base == TPMResponseCode.integrity else { return nil }
        return (.blobCorrupt, "the TPM rejected the sealed blob as damaged")
    }

    /// TPM_RC_POLICY_FAIL on Unseal: the session's policy digest (built from the PCRs' current
    /// values) differs from the object's; TPM_RC_PCR_CHANGED: a PCR moved during the command.
    private static func classifyUnsealFailure(_ rc: TPMResponseCode) -> (code: TPMErrorCode, message: String)? {
        guard rc.isFromTPM else { return nil }
        switch rc.base {
        case TPMResponseCode.policyFail, TPMResponseCode.pcrChanged:
            return (.pcrMismatch, "the PCRs this secret is bound to have changed since it was sealed")
        default:
            return nil
        }
    }

    private static func bytes(of name: TPM2B_NAME) -> [UInt8] {
        CBuffer.load(name.name, count: Int(name.size))
    }
}
