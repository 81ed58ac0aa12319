/// Notices the wall clock being stepped while this process runs (issue #30 item 2: an operator's
/// correction, NTP on a station without RTC), by how far wall time moved against the boot clock
/// between two looks. The boot clock (`BootClock`) rather than the monotonic one, because it
/// counts suspend: waking from suspend moves both alike and is no step.
///
/// Each look compares with the one before, so NTP's slewing (at most 0.5 ms a second) never adds
/// up to a step; one of a second or more is what chrony and ntpd step rather than slew.
public struct WallClockStepWatch: Sendable {
    /// Smaller differences are reading jitter or slewing, not a step.
    public static let tolerance: Double = 1

    private var offset: Double?

    public init() {}

    /// The step since the previous look, in seconds (negative: the clock went back), or nil
    /// when there was none or this is the first look.
    public mutating func look(wall: Double, boot: BootInstant) -> Double? {
        let current = wall - boot.seconds
        defer { offset = current }
        guard let offset, abs(current - offset) >= Self.tolerance else { return nil }
        return current - offset
    }
}
