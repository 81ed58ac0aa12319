@_exported import EdgeCore

/// An error from the scanning layer.
public typealias ScanError = CodedError<ScanErrorCode>

public enum ScanErrorCode: String, Sendable, Hashable {
    case unknownSymbology = "unknown-symbology"
    case zbarFailure = "zbar-failure"
    case badImage = "bad-image"
    case unknownPass = "unknown-pass"
    /// No code was found, and at least one pass was not run because the image it would derive
    /// (padded, scaled, rotated) exceeds the pixel budget (SCN-10); the message names the pass,
    /// the size it would have made and the limit.
    case passTooLarge = "pass-too-large"
}
