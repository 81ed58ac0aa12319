import ArgumentParser
import EdgeAgent
import EdgeCommandLine
import EdgeEnrollment
import EdgeStation
import Foundation
import Logging

/// `edge enroll`: the clinic station's linking (enrollment.md). `edge enroll CODE` links, `edge
/// enroll cancel|check ID` act on one enrollment; `edge enrollments` lists them.
struct EnrollCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Link an enrollment with a linking code, typed or held to a camera; cancel or check one.",
        discussion: EnrollCommand.exitCodes,
        subcommands: [EnrollLinkCommand.self, EnrollCancelCommand.self, EnrollCheckCommand.self],
        defaultSubcommand: EnrollLinkCommand.self
    )

    static let exitCodes = """
        Exit status: 0 done; 1 the vault, the database or the camera failed; 2 configuration or \
        usage error; 3 the code was refused before anything was sent (ENR-3) or no code was seen; \
        4 the portal refused the code, or it belongs to another patient (ENR-5, ENR-14); 5 try \
        again later: no network, timeout, server error or too many attempts (ENR-5..7); 6 the \
        enrollment is not in a state that allows this (ENR-11).
        """

    /// The exit status of a failure, as `exitCodes` lists them.
    static func exitCode(_ code: EnrollmentErrorCode) -> Int32 {
        switch code {
        case .localValidation, .noCodeSeen: 3
        case .invalidCode, .differentPatient: 4
        case .noNetwork, .timedOut, .serverError, .rateLimited: 5
        case .invalidTransition, .revoked: 6
        case .notConfigured: 2
        case .notFound: 2
        case .vault, .store, .camera: 1
        }
    }

    /// The message on stderr and the status; never the code or a token (ENR-8).
    static func fail(_ error: EnrollmentError) -> ExitCode {
        Output.stderr("edge: \(error.message)")
        return ExitCode(exitCode(error.code))
    }
}

/// Where the enrollment commands find the station.
struct EnrollOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Station configuration (edge.json).", valueName: "FILE"))
    var config: String?

    @Flag(name: .customLong("json"), help: "One JSON object valid against models/enrollments.schema.json.")
    var json = false

    func open() throws -> (Enrollments, StationConfiguration) {
        let station = try ConfigFile.loadForCommand(explicitPath: config).station
        // Decision: the command's own answer is its message and exit status; only warnings
        // (a revocation, a refused re-enrollment) also go to stderr as key=value lines. The
        // agent logs every ENR-8 failure line (type and time) to the journal.
        var handler = KeyValueLogHandler(label: "edge.enrollment")
        handler.logLevel = .warning
        let logger = Logger(label: "edge.enrollment") { _ in handler }
        do {
            return (try Enrollments.open(station, environment: ProcessInfo.processInfo.environment, logger: logger,
                                              migrations: StationSchema.migrations), station)
        } catch {
            throw EnrollCommand.fail(error)
        }
    }

    func print(_ enrollment: Enrollment) {
        if json {
            Output.stdout(Output.json(EnrollmentDocument(enrollment)))
        } else {
            EnrollmentDocument(enrollment).printText()
        }
    }
}
