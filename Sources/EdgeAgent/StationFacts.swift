import EdgeCore
import EdgePayloads
import EdgeScanning
import EdgeStore

/// Something the station did, told after it was committed: a scan recorded, a lookup made, an
/// enrollment changed. Capabilities define their own facts (the agent does not know their kinds)
/// and screens switch on the concrete type.
public protocol StationFact: Sendable {}

/// The station's one in-process stream of facts (issue #27): every part that changes what a
/// screen shows publishes here after its transaction commits, and the kiosk, receiving and
/// enrollment subscribe. The database is read only to catch up a reconnecting screen, never
/// polled by the process that wrote it.
///
/// Decision: each subscriber has its own buffer of `bufferLimit` facts, the oldest dropped first
/// when a subscriber falls that far behind. A publisher (a camera's thread) never waits for a
/// slow screen; a screen that lost facts catches up from the database on reconnect (scan ids).
public final class StationFacts: Sendable {
    public static let bufferLimit = 256

    private struct Subscribers {
        var next = 0
        var open: [Int: AsyncStream<any StationFact>.Continuation] = [:]
    }

    private let subscribers = Locked(Subscribers())

    public init() {}

    /// Every fact published from now on, until the subscription is dropped or finished, or
    /// `finish()` is called. Subscribe before the part that publishes starts, so that nothing in
    /// between is missed.
    public func subscribe() -> Subscription {
        let (stream, continuation) = AsyncStream.makeStream(of: (any StationFact).self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let id = subscribers.withLock { state in
            defer { state.next += 1 }
            state.open[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [subscribers] _ in
            subscribers.withLock { _ = $0.open.removeValue(forKey: id) }
        }
        return Subscription(stream: stream, continuation: continuation)
    }

    /// One subscriber's facts, in order. `finish()` ends the sequence after the facts already
    /// buffered: a service ends its loop at graceful shutdown that way, after the fact in hand.
    ///
    /// Decision: not ServiceLifecycle's `cancelOnGracefulShutdown()` around the stream: `edge
    /// run` crashed in it (a bad retain of the element, `swift_retain` in the fact's copy) within a
    /// second of the first scan, every time, in a debug build; a finished stream has no such part.
    public struct Subscription: AsyncSequence, Sendable {
        public typealias Element = any StationFact
        let stream: AsyncStream<any StationFact>
        let continuation: AsyncStream<any StationFact>.Continuation

        public func makeAsyncIterator() -> AsyncStream<any StationFact>.Iterator { stream.makeAsyncIterator() }

        /// No more facts for this subscriber: its loop ends once the buffered ones are read.
        public func finish() { continuation.finish() }
    }

    /// Tells every subscriber; call it after the fact's transaction committed.
    public func publish(_ fact: any StationFact) {
        for continuation in subscribers.withLock({ Array($0.open.values) }) { continuation.yield(fact) }
    }

    /// How many subscribers are open (status and tests).
    public var subscriberCount: Int { subscribers.withLock { $0.open.count } }

    /// Ends every subscription (the station stopped).
    public func finish() {
        let all = subscribers.withLock { state in defer { state.open = [:] }; return Array(state.open.values) }
        for continuation in all { continuation.finish() }
    }
}

/// A camera read recorded as a scan event (AGT-4), with the decoded text the database does not
/// keep for linking codes (in memory only: the clinic screen takes a code held to the camera).
public struct ScanRecorded: StationFact {
    public let camera: String
    public let result: ScanResult
    public let classification: Classification
    public let event: ScanEvent

    public init(camera: String, result: ScanResult, classification: Classification, event: ScanEvent) {
        self.camera = camera
        self.result = result
        self.classification = classification
        self.event = event
    }
}

/// A camera came up, went down or failed (status shows it without asking the database).
public struct CameraStateChanged: StationFact {
    public let camera: AgentState.Camera
}
