@_exported import EdgeCore

/// An error from the scanning layer.
public typealias ScanError = CodedError<ScanErrorCode>

public enum ScanErrorCode: String, Sendable, Hashable {
    case unknownSymbology = "unknown-symbology"
    case zbarFailure = "zbar-failure"
    case badImage = "bad-image"
    case unknownPass = "unknown-pass"
}
