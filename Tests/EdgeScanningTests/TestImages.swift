import EdgeImaging
import Foundation
import XCTest

/// Locations of the committed samples and the shared photographs, found from this file's path
/// so tests work from any working directory.
enum TestImages {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let samples = packageRoot.appendingPathComponent("samples")
    static let photos = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/photos")

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    static func sample(_ name: String) throws -> GrayImage {
        try ImageLoader.load(path: samples.appendingPathComponent(name).path)
    }
}
