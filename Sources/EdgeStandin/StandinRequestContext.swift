import Hummingbird
import NIOCore

/// Hummingbird's basic context plus the channel the request came on: the FCM stand-in's
/// `goaway` fault closes that connection, and tests count connections (PSH-10).
struct StandinRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's channel: the connection for HTTP/1.1, the stream for HTTP/2 (whose
    /// `parent` is the connection).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The TCP connection's channel.
    var connection: any Channel { channel.parent ?? channel }
}
