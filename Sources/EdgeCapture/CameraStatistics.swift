/// Counters one runner keeps (HW-3: outages are counted).
public struct CameraStatistics: Sendable, Equatable {
    public var frames = 0
    public var outages = 0
    public var timeouts = 0
    public var totalDowntime: Duration = .zero

    public init() {}
}
