import EdgeCapture
import Foundation
import XCTest

/// HW-3 over the scripted driver: outage reported and counted, capture resumes by itself.
final class CameraRunnerTests: XCTestCase {
    func testRunnerSurvivesUnplugAndReplug() throws {
        let driver = FakeVideoDriver(format: .grey, width: 16, height: 16)
        let runner = CameraRunner(path: driver.path, driver: driver, retryInterval: .milliseconds(5)) { _ in
            CaptureConfiguration(frameTimeout: .milliseconds(200))
        }
        var events: [String] = []
        var frames = 0
        var unplugged = 0
        runner.run(shouldStop: { false }, onEvent: { event in
            switch event {
            case .opened: events.append("opened")
            case .lost(let error, let outage): events.append("lost \(error.code.rawValue) \(outage)")
            case .restored(_, let outage): events.append("restored \(outage)")
            case .retrying(let error): events.append("retrying \(error.code.rawValue)")
            case .failed(let error): events.append("failed \(error.code.rawValue)")
            }
            if case .lost = event {
                // Plugged back in a little later, from another thread, like udev would.
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { driver.gone = false }
            }
        }, onFrame: { _ in
            frames += 1
            if frames % 10 == 0 && unplugged < 2 {
                unplugged += 1
                driver.gone = true
            }
            return frames < 35
        })
        XCTAssertEqual(events, ["opened", "lost device-gone 1", "restored 1", "lost device-gone 2", "restored 2"])
        XCTAssertEqual(runner.statistics.outages, 2)
        XCTAssertEqual(frames, 35)
        XCTAssertEqual(driver.liveMappings, 0)
        XCTAssertEqual(driver.openDescriptors, 0)
    }

    func testStopWhileWaitingForAMissingCamera() {
        let driver = FakeVideoDriver()
        driver.gone = true
        let runner = CameraRunner(path: driver.path, driver: driver, retryInterval: .milliseconds(5)) { _ in CaptureConfiguration() }
        let start = Date()
        runner.run(shouldStop: { Date().timeIntervalSince(start) > 0.1 }, onEvent: { _ in }, onFrame: { _ in true })
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertEqual(driver.openDescriptors, 0)
    }
}
