import Testing
@testable import EdgeImaging

@Suite struct ImageErrorTests {
    @Test func messageNamesFileAndReason() {
        let error = ImageError(.truncated, path: "scans/a.png", reason: "truncated PNG")
        #expect(error.message == "scans/a.png: truncated PNG")
        #expect(error.description == error.message)
        #expect("\(error)" == error.message)
    }

    @Test func messageIsAlwaysOneLine() {
        let error = ImageError(.corrupt, path: "evil\nname\r.png", reason: "libpng said\nsomething\u{7}")
        #expect(!error.message.contains("\n") && !error.message.contains("\r"))
        #expect(error.message == "evil\\nname\\r.png: libpng said\\nsomething\\u{7}")
    }

    @Test func codesAreStableStrings() {
        #expect(ImageErrorCode.allCases.map(\.rawValue) ==
                ["not-found", "unreadable-file", "empty", "unsupported-format", "truncated", "corrupt", "too-large", "decoder-failure"])
    }
}
