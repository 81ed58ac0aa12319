import ArgumentParser
import EdgeEnrollment

/// `edge enroll cancel ID`: LINKING_PENDING → PERSONAL_USE (ENR-11), e.g. an enrollment whose
/// validation was interrupted.
struct EnrollCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel an enrollment that is LINKING_PENDING.",
        discussion: EnrollCommand.exitCodes
    )

    @OptionGroup var options: EnrollOptions

    @Argument(help: ArgumentHelp("The enrollment, as `edge enrollments` lists it.", valueName: "ID"))
    var id: Int64

    func run() throws {
        let (enrollments, _) = try options.open()
        do {
            options.print(try enrollments.cancel(id))
        } catch {
            throw EnrollCommand.fail(error)
        }
    }
}
