/// A test's server, tool or build product is missing or did not come up. Thrown, so XCTest and
/// Swift Testing record a failure: CI installs and builds everything, so a missing part is a
/// broken setup, never a reason to skip (issue #16; `.ci/test` fails on unlisted skips too).
public struct SetupFailure: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
