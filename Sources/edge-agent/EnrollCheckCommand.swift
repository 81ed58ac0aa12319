import ArgumentParser
import EdgeEnrollment

/// `edge enroll check ID`: asks the portal now what the agent asks every 60 s (ENR-13): a
/// STUDY_START_PENDING enrollment the investigator approved becomes ENROLLED; a revoked token is
/// refreshed once or the enrollment revoked (ENR-10).
struct EnrollCheckCommand: BridgedAsyncCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Ask the portal now whether Study Start was approved (or the enrollment revoked).",
        discussion: EnrollCommand.exitCodes
    )

    @OptionGroup var options: EnrollOptions

    @Argument(help: ArgumentHelp("The enrollment, as `edge enrollments` lists it.", valueName: "ID"))
    var id: Int64

    func runAsync() async throws {
        let (enrollments, _) = try options.open()
        do {
            options.print(try await enrollments.check(id))
        } catch {
            throw EnrollCommand.fail(error)
        }
    }
}
