import EdgeCore

/// EdgeFCM's error. Never carries the private key, the JWT or an access token.
public typealias FCMError = CodedError<FCMErrorCode>
