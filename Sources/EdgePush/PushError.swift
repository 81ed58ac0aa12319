import EdgeCore

/// EdgePush's error. Messages and context name users, zones and fields, never device tokens.
public typealias PushError = CodedError<PushErrorCode>
