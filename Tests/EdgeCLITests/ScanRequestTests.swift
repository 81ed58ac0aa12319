@testable import edge_agent
import EdgeCommandLine
import XCTest

/// `edge scan`'s fast path must read every argument list it accepts exactly as ScanCommand
/// (swift-argument-parser) does, and leave everything else to it.
final class ScanRequestTests: XCTestCase {
    func testFastPathAgreesWithTheArgumentParser() throws {
        let accepted: [[String]] = [
            ["--image", "a.png"],
            ["--image", "a.png", "b.jpg", "c.pgm"],
            ["--json", "--image", "a.png", "b.png"],
            ["--image", "a.png", "--json", "--symbology", "qr,code128"],
            ["--image", "a.png", "--image", "b.png"],
            ["--config", "samples/edge.json", "--image", "a.png", "--passes", "plain,invert", "--budget-ms", "250", "--add-ons"],
            ["--image", "with space.png", "--symbology", "ean13"],
        ]
        for arguments in accepted {
            let fast = try XCTUnwrap(ScanRequest.fastPath(arguments), "\(arguments)")
            let parsed = try ScanCommand.parse(arguments).request
            XCTAssertEqual(fast, parsed, "\(arguments)")
        }
    }

    func testAnythingElseIsLeftToTheArgumentParser() {
        let refused: [[String]] = [
            [], ["--help"], ["-h"], ["--image"], ["--json"], ["--image=a.png"], ["--image", "a.png", "--json", "--json"],
            ["--image", "a.png", "--symbology"], ["--image", "a.png", "--symbology", "--json"], ["--image", "a.png", "--budget-ms", "soon"],
            ["--camera", "/dev/video0"], ["--image", "a.png", "--frames", "3"], ["--image", "a.png", "--unknown"], ["a.png"],
            ["--image", "-weird.png"],
        ]
        for arguments in refused {
            XCTAssertNil(ScanRequest.fastPath(arguments), "\(arguments)")
        }
    }
}
