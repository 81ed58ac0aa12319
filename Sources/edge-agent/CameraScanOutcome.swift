/// How one camera's scan ended; `CameraScan` turns these into the exit status.
enum CameraScanOutcome: Sendable, Equatable {
    case found
    case nothingFound
    case unusable
}
