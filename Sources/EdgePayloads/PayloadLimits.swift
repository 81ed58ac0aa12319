/// Bounds on what the classifier inspects (SCN-10). Payloads are attacker-controlled.
public enum PayloadLimits {
    /// Longest payload (UTF-8 bytes) that is inspected at all. The largest QR code holds 2,953
    /// bytes and 1D codes far less, so anything longer did not come off a real label; it is
    /// reported as `unknown` with a reason instead of being parsed.
    public static let maxPayloadBytes = 4096

    /// Deepest JSON nesting (objects + arrays) that is parsed. Vendor and link cards are flat
    /// (depth 1); 16 leaves room for configured formats while keeping the recursive parser's
    /// stack use trivially bounded. Checked by a byte scan before any parsing.
    public static let maxJSONDepth = 16
}
