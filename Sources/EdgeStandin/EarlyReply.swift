/// Thrown by the endpoint helpers (parsing, authentication) to answer at once; `handle` turns it
/// back into the reply. Keeps each endpoint a straight line instead of nested guards.
struct EarlyReply: Error {
    let reply: StandinReply

    init(_ reply: StandinReply) {
        self.reply = reply
    }
}
