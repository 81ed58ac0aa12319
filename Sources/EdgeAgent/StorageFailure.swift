import EdgeCore

/// A write the agent could not make for want of a working disk (issue #30 item 1), kept in its
/// state (and so in the status file) until a write there succeeds or the disk has room again.
public struct StorageFailure: Sendable, Codable, Equatable {
    public var cause: StorageProblem.Cause
    public var directory: String
    /// The cause in words (`StorageProblem.words`) when it happened.
    public var words: String
    /// The failed write's own message: which file, what was being done.
    public var message: String
    /// Unix seconds of the first failure of this run.
    public var since: Double

    public init(_ problem: StorageProblem, message: String, since: Double) {
        cause = problem.cause
        directory = problem.directory
        words = problem.words
        self.message = message
        self.since = since
    }
}
