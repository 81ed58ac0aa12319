/// Where linking-code text came from; ENR-2 normalises typed and scanned/pasted text differently.
public enum LinkingCodeInputSource: String, Sendable, Hashable {
    /// Typed by a person: dashes and spaces stripped, upper-cased, at most 12 characters taken.
    case typed
    /// Scanned or pasted: only ASCII letters and digits are kept (upper-cased).
    case scanned
}
