@_exported import EdgeCore

/// An error from camera capture: a code, a one-line message, and context (device path, ioctl,
/// errno) for operators.
public typealias CaptureError = CodedError<CaptureErrorCode>
