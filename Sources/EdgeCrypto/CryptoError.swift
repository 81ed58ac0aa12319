import EdgeCore

/// EdgeCrypto's error. Messages and context never contain key or plaintext bytes.
public typealias CryptoError = CodedError<CryptoErrorCode>
