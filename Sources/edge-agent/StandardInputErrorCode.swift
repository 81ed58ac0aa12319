import EdgeCore

/// Why stdin could not be read whole (`StandardInput.readAll`).
enum StandardInputErrorCode: String, Sendable, Hashable {
    /// More bytes than the command accepts.
    case tooLarge = "stdin-too-large"
    /// read(2) failed (EIO, EISDIR, ...): what was read is discarded, never used as a whole value.
    case readFailed = "stdin-read-failed"
}

typealias StandardInputError = CodedError<StandardInputErrorCode>
