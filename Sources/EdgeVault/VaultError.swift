@_exported import EdgeCore

/// Why the vault refused or failed. Messages name files and secrets, never values (VLT-7).
public typealias VaultError = CodedError<VaultErrorCode>

public enum VaultErrorCode: String, Sendable, Hashable {
    /// The secret name is not `[a-z0-9][a-z0-9._-]{0,63}`.
    case invalidName = "invalid-name"
    case notFound = "not-found"
    /// Magic, version, backend or a size field is not one this build reads: refused before crypto.
    case unsupportedEnvelope = "unsupported-envelope"
    /// The file ends early or has bytes after the tag.
    case truncated
    /// Authentication failed: a flipped bit, another device, another name, or another key.
    case tampered
    /// The envelope names a key this vault does not have (wiped, or from another host).
    case unknownKey = "unknown-key"
    /// Key file or directory with looser permissions, hard links, wrong type, size or owner.
    case insecureKeyFile = "insecure-key-file"
    /// Keys in both the key directory and the vault directory's old `keys/`: never merged.
    case keyConflict = "key-conflict"
    case io
    /// The disk holding the vault refused a write (full, read-only, quota, I/O error): the message
    /// names the file and the cause; the secrets already there are untouched (VLT-3).
    case storage
    /// A FIFO, device, directory or other non-regular file where a vault file belongs: refused
    /// without being read (opened non-blocking), so it cannot hang the vault.
    case notRegularFile = "not-regular-file"
    /// The configured TPM cannot be reached (no device, no socket).
    case tpmUnavailable = "tpm-unavailable"
    /// The sealed key belongs to another TPM (or this TPM after its owner hierarchy was cleared).
    case wrongTPM = "wrong-tpm"
    /// The sealed key is bound to PCR values that no longer hold.
    case pcrMismatch = "pcr-mismatch"
    case tpmFailure = "tpm-failure"
    case crypto
    case tooLarge = "too-large"
}
