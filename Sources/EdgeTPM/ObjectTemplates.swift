import CTSS

/// The public templates and session cipher used by `TPMContext`.
enum ObjectTemplates {
    /// Storage primary under the owner hierarchy: ECC NIST P-256, nameAlg SHA-256, restricted
    /// decrypt, AES-128-CFB inner wrapper, empty `unique` (the TCG SRK-style template, the same as
    /// `tpm2_createprimary -C o -G ecc`). ECC rather than RSA-2048 because key generation is far
    /// cheaper on real TPMs, and the primary is recreated on every seal and unseal. The primary is
    /// derived deterministically from the owner seed and this template, so the same TPM recreates
    /// the same key (and Name) every time; changing any field here orphans every existing blob.
    static var storagePrimary: TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_ECC)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes = TPMA_OBJECT(
            TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN
                | TPMA_OBJECT_USERWITHAUTH | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED
                | TPMA_OBJECT_DECRYPT)
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPMI_ALG_SYM_OBJECT(TPM2_ALG_AES)
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        template.publicArea.parameters.eccDetail.scheme.scheme = TPMI_ALG_ECC_SCHEME(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.curveID = TPMI_ECC_CURVE(TPM2_ECC_NIST_P256)
        template.publicArea.parameters.eccDetail.kdf.scheme = TPMI_ALG_KDF(TPM2_ALG_NULL)
        return template
    }

    /// The sealed data object: KEYEDHASH with a NULL scheme (a sealed data blob, not an HMAC
    /// key), fixedTPM/fixedParent so it cannot be duplicated, noDA because it has an empty auth
    /// value. Without a policy it is usable with its (empty) auth value; with a PCR policy
    /// userWithAuth is cleared so only a satisfied policy session can unseal it.
    static func sealedObject(policyDigest: [UInt8]?) -> TPM2B_PUBLIC {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_KEYEDHASH)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        var attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_NODA
        if let policyDigest {
            template.publicArea.authPolicy.size = CBuffer.store(policyDigest, into: &template.publicArea.authPolicy.buffer)
        } else {
            attributes |= TPMA_OBJECT_USERWITHAUTH
        }
        template.publicArea.objectAttributes = TPMA_OBJECT(attributes)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMI_ALG_KEYEDHASH_SCHEME(TPM2_ALG_NULL)
        return template
    }

    /// AES-128-CFB: the parameter-encryption cipher for the salted sessions (the one every TPM
    /// 2.0 implements).
    static var sessionCipher: TPMT_SYM_DEF {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMI_ALG_SYM(TPM2_ALG_AES)
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        return symmetric
    }

    /// For trial sessions, which only compute a digest and need no cipher.
    static var noCipher: TPMT_SYM_DEF {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMI_ALG_SYM(TPM2_ALG_NULL)
        return symmetric
    }
}
