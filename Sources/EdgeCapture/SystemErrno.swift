/// An errno from one of the raw calls a `VideoDriver` makes. Only `VideoDevice` sees it: it
/// retries EINTR and turns everything else into a `CaptureError`.
public struct SystemErrno: Error, Sendable, Hashable {
    public let code: Int32
    public init(_ code: Int32) { self.code = code }
}
