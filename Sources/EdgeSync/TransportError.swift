import EdgeCore
public typealias TransportError = CodedError<TransportErrorCode>
extension TransportError {
    public var isTransportFailure: Bool { true }
}
