import EdgeCapture
import EdgeImaging
import Foundation
import XCTest

/// CameraSession and VideoDevice over the scripted driver: buffer accounting, luma handling,
/// EINTR and device loss, on any host.
final class CameraSessionTests: XCTestCase {
    private func residentBytes() -> Int {
        let text = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// 10,000 frames: every buffer goes back to the driver, memory stays flat, close unmaps all.
    func testTenThousandFramesLeakNoBufferAndNoMemory() throws {
        let driver = FakeVideoDriver(format: .grey, width: 64, height: 48)
        let session = try CameraSession(path: driver.path, configuration: CaptureConfiguration(bufferCount: 3), driver: driver)
        XCTAssertEqual(driver.liveMappings, 3)
        var rssAfterWarmUp = 0
        var checksum = 0
        for n in 0..<10_000 {
            let zeroCopy = try session.nextFrame { frame -> Bool in
                checksum &+= Int(frame.luma.pixels[n % frame.luma.pixels.count])
                return frame.zeroCopy
            }
            XCTAssertTrue(zeroCopy)
            if session.buffersOut != 0 { XCTFail("buffer not re-queued after frame \(n)"); break }
            if n == 1000 { rssAfterWarmUp = residentBytes() }
        }
        let growth = residentBytes() - rssAfterWarmUp
        XCTAssertLessThan(growth, 1 << 20, "RSS grew \(growth) bytes over 9,000 frames")
        XCTAssertEqual(session.framesDelivered, 10_000)
        session.close()
        XCTAssertEqual(driver.liveMappings, 0)
        XCTAssertEqual(driver.openDescriptors, 0)
        XCTAssertNotEqual(checksum, 0)
    }

    /// YUYV: the reader gets exactly the Y bytes, packed, never chroma.
    func testYUYVLumaIsTheYBytes() throws {
        let driver = FakeVideoDriver(format: .yuyv, width: 64, height: 8)
        let session = try CameraSession(path: driver.path, configuration: CaptureConfiguration(), driver: driver)
        for _ in 0..<5 {
            let (ok, zeroCopy) = try session.nextFrame { frame -> (Bool, Bool) in
                let view = frame.luma
                var ok = view.width == 64 && view.height == 8 && view.rowStride == 64
                for y in 0..<8 { for x in 0..<64 where view.pixels[y * 64 + x] != FakeVideoDriver.luma(x: x, y: y, frame: frame.sequence) { ok = false } }
                return (ok, frame.zeroCopy)
            }
            XCTAssertTrue(ok)
            XCTAssertFalse(zeroCopy)
        }
    }

    func testInterruptedCallsAreRetried() throws {
        let driver = FakeVideoDriver(format: .nv12, width: 32, height: 16)
        driver.pendingInterrupts = 3
        let session = try CameraSession(path: driver.path, configuration: CaptureConfiguration(), driver: driver)
        driver.pendingInterrupts = 2
        let size = try session.nextFrame { ($0.luma.width, $0.luma.height, $0.zeroCopy) }
        XCTAssertEqual(size.0, 32)
        XCTAssertEqual(size.1, 16)
        XCTAssertTrue(size.2, "NV12's Y plane is viewed in place")
    }

    /// A device that vanishes mid-stream gives `.deviceGone`, and close still unmaps everything.
    func testVanishedDeviceIsTypedAndCleanedUp() throws {
        let driver = FakeVideoDriver(format: .grey, width: 16, height: 16)
        let session = try CameraSession(path: driver.path, configuration: CaptureConfiguration(frameTimeout: .milliseconds(200)), driver: driver)
        _ = try session.nextFrame { _ in () }
        driver.gone = true
        XCTAssertThrowsError(try session.nextFrame { _ in () }) { error in
            XCTAssertEqual((error as? CaptureError)?.code, .deviceGone)
            XCTAssertEqual((error as? CaptureError)?.context["call"], "VIDIOC_DQBUF")
        }
        session.close()
        XCTAssertEqual(driver.liveMappings, 0)
        XCTAssertEqual(driver.openDescriptors, 0)
        XCTAssertThrowsError(try CameraSession(path: driver.path, configuration: CaptureConfiguration(), driver: driver)) { error in
            XCTAssertEqual((error as? CaptureError)?.code, .notFound)
        }
    }

    func testConfigurationIsValidated() {
        XCTAssertThrowsError(try CaptureConfiguration(bufferCount: 1).validate())
        XCTAssertThrowsError(try CaptureConfiguration(bufferCount: 5).validate())
        XCTAssertThrowsError(try CaptureConfiguration(preferredFormats: [.mjpeg]).validate())
        XCTAssertNoThrow(try CaptureConfiguration().validate())
    }

    func testUnknownControlIsAConfigurationError() throws {
        let driver = FakeVideoDriver(format: .grey, width: 16, height: 16)
        XCTAssertThrowsError(try CameraSession(path: driver.path, configuration: CaptureConfiguration(controls: ["focus_absolute": 40]), driver: driver)) { error in
            XCTAssertEqual((error as? CaptureError)?.code, .invalidConfiguration)
        }
        XCTAssertEqual(driver.liveMappings, 0)
        XCTAssertEqual(driver.openDescriptors, 0, "a failed open closes the node")
    }
}
