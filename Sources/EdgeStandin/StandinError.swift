import EdgeCore

/// An error of the stand-in's own (not an HTTP answer), in the project's one error shape.
public typealias StandinError = CodedError<StandinErrorCode>
