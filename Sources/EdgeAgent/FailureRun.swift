/// A run of one failure repeated (issue #30 item 1: a full disk logged "scan event not recorded"
/// for every frame that carried a code): the writer logs when a run starts or its kind changes,
/// counts quietly while it lasts, and logs once more when it ends.
struct FailureRun {
    /// What tells one failure from another: an error's code and cause, never its words (those
    /// carry the free bytes, which change while the disk stays full).
    private(set) var kind: String?
    private(set) var count = 0

    /// Counts a failure; true when it starts a run (or is of another kind than the run's) and
    /// should be logged.
    mutating func failed(kind: String) -> Bool {
        count += 1
        guard kind != self.kind else { return false }
        self.kind = kind
        return true
    }

    /// Ends the run; how many failures it had, nil when none was running.
    mutating func succeeded() -> Int? {
        guard kind != nil else { return nil }
        defer {
            kind = nil
            count = 0
        }
        return count
    }
}
