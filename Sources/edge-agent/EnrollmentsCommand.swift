import ArgumentParser
import EdgeCommandLine
import EdgeEnrollment
import Foundation

/// `edge enrollments [--json]`: every enrollment of the station with its state, sponsor display
/// and history (ENR-11, ENR-12).
struct EnrollmentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enrollments",
        abstract: "List the station's enrollments: state, sponsor, history.",
        discussion: "With --json, one object valid against models/enrollments.schema.json. Exit status: 0, or 1/2 as for `edge enroll`."
    )

    @OptionGroup var options: EnrollOptions

    func run() throws {
        let (enrollments, _) = try options.open()
        let all: [Enrollment]
        do {
            all = try enrollments.store.all()
        } catch {
            throw EnrollCommand.fail(error)
        }
        if options.json {
            Output.stdout(Output.json(EnrollmentDocument.List(enrollments: all.map(EnrollmentDocument.init))))
            return
        }
        if all.isEmpty { Output.stdout("no enrollments on this station; `edge enroll CODE` links one") }
        for (index, enrollment) in all.enumerated() {
            if index > 0 { Output.stdout("") }
            EnrollmentDocument(enrollment).printText()
        }
    }
}
