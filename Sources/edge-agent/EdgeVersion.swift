import EdgeAgent

/// This build's version: `X-App-Version` (SYN-6) and what a 426 is recorded against; the
/// agent's builders carry the same value.
enum EdgeVersion {
    static let current = StationParts.appVersion
}
