/// What a fault does to a request on a contract path (SYN-11).
public enum FaultKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Close the connection as soon as the request's first bytes (its head) arrive: nothing is
    /// read or applied, no answer. Acting at the head rather than at accept keeps the fault off
    /// the `/_standin/` control paths, which cannot be told apart before they speak.
    case refuse
    /// Hold the request for `delay_ms`, then handle it normally. The request is applied only after
    /// the delay; if the client gives up first and closes, it is never applied.
    case delay
    /// Read the whole request, apply it, then close the connection without an answer: the client
    /// cannot know its write happened (the case idempotency keys exist for).
    case drop
    /// Read the whole request, then close without applying it or answering.
    case dropBeforeApply
    /// Answer `status` (default 503) with an APIErrorEnvelope, an optional Retry-After and error
    /// code, without applying the request.
    case status
    /// Apply and answer, then write the same answer a second time on the connection.
    case double
    /// A backend that never answers (issue #30 item 4): read the request, then nothing: no
    /// answer, no close, not applied. The connection stays open until the client gives up or
    /// the stand-in stops.
    case stall
    /// A backend that answers one byte at a time (issue #30 item 4): apply, send the answer's
    /// head, then its body one byte every `interval_ms` (default 1000), then close.
    case trickle

    /// What random mode picks from when it is given no kinds: the faults a client gets past by
    /// retrying; `stall` and `trickle` only end at the client's timeout, so a soak asks for them
    /// by name.
    public static let randomDefaults: [FaultKind] = [.refuse, .delay, .drop, .dropBeforeApply, .status, .double]
}
