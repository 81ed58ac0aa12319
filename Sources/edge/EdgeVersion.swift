/// This build's version: `X-App-Version` (SYN-6) and what a 426 is recorded against.
enum EdgeVersion {
    static let current = "0.3.0"
}
