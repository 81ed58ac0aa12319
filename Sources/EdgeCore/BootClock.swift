import Glibc

/// A time on this boot's own clock (CLOCK_BOOTTIME): seconds since the machine started, counting
/// suspend, shared by every process on the machine, and never stepped by NTP, an operator or a
/// station without an RTC booting in 1970. What must not be skipped or stretched by a wall-clock
/// step (ENR-7's cooldown, issue #30) is measured on it; `bootID` says which boot it belongs to,
/// since the count restarts with every boot.
public struct BootInstant: Sendable, Hashable {
    public let bootID: String
    public let seconds: Double

    public init(bootID: String, seconds: Double) {
        self.bootID = bootID
        self.seconds = seconds
    }

    /// Seconds from `earlier` to this instant, or nil when they are from different boots.
    public func since(_ earlier: BootInstant) -> Double? {
        earlier.bootID == bootID ? seconds - earlier.seconds : nil
    }
}

public enum BootClock {
    /// The kernel's id of this boot (/proc/sys/kernel/random/boot_id), read once. A system
    /// without it (not Linux's procfs) gets "unknown", and a later reading then looks like the
    /// same boot: wall time is what remains for telling boots apart there.
    public static let bootID: String = {
        guard let text = try? PosixFile.readAll(path: "/proc/sys/kernel/random/boot_id", maxBytes: 64) else { return "unknown" }
        let id = String(decoding: text, as: UTF8.self).filter { !$0.isWhitespace }
        return id.isEmpty ? "unknown" : id
    }()

    @Sendable public static func now() -> BootInstant {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return BootInstant(bootID: bootID, seconds: Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9)
    }
}
