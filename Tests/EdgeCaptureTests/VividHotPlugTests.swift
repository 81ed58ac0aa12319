import EdgeCore
import EdgeCapture
import EdgeTestSupport
import Foundation
import XCTest

/// HW-3 on a real driver: vivid unbound while capturing (its nodes vanish, like an unplugged
/// camera) and bound again. Runs in the VM (.ci/vivid-vm).
final class VividHotPlugTests: XCTestCase {
    private var node = ""
    private var platformDevice = ""

    override func setUpWithError() throws {
        guard let capture = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        node = capture
        platformDevice = try XCTUnwrap(Vivid.platformDevice(), "vivid is not bound")
        try Vivid.useWebcamInput(capture)
    }

    override func tearDown() {
        // Leave vivid bound for the next test whatever happened.
        if Vivid.platformDevice() == nil, !platformDevice.isEmpty { try? Vivid.setBound(true, device: platformDevice) }
    }

    /// Several cameras at once, each on its own runner and thread (HW-3), through an unplug of
    /// both: vivid's one platform device owns every instance, so unbinding it removes both
    /// cameras; each runner reports its own outage and both resume.
    func testTwoCamerasRecoverIndependently() throws {
        guard let second = Vivid.secondCapture else { throw XCTSkip("EDGE_TEST_CAMERA_2 is not set") }
        try Vivid.useWebcamInput(second)
        let configuration = CaptureConfiguration(size: FrameSize(width: 320, height: 180), frameTimeout: .seconds(5))
        let counts = Locked([0, 0])
        let lost = Locked([0, 0])
        let stop = Locked(false)
        let group = DispatchGroup()
        for (index, path) in [node, second].enumerated() {
            group.enter()
            Thread.detachNewThread {
                let runner = CameraRunner(path: path, retryInterval: .milliseconds(100)) { _ in configuration }
                runner.run(shouldStop: { stop.get() }, onEvent: { event in
                    if case .lost = event { lost.withLock { $0[index] += 1 } }
                }, onFrame: { _ in
                    counts.withLock { $0[index] += 1 }
                    return true
                })
                group.leave()
            }
        }
        XCTAssertTrue(wait(seconds: 20) { counts.get().allSatisfy { $0 >= 3 } }, "both cameras deliver: \(counts.get())")
        try Vivid.setBound(false, device: platformDevice)
        XCTAssertTrue(wait(seconds: 10) { lost.get() == [1, 1] }, "each runner reports its outage: \(lost.get())")
        let before = counts.get()
        try Vivid.setBound(true, device: platformDevice)
        XCTAssertTrue(wait(seconds: 20) { zip(counts.get(), before).allSatisfy { $0 >= $1 + 3 } }, "both resume: \(before) → \(counts.get())")
        stop.set(true)
        XCTAssertEqual(group.wait(timeout: .now() + 15), .success)
        XCTAssertEqual(lost.get(), [1, 1])
    }

    /// The device vanishes while a DQBUF wait is in progress: the wait ends promptly with
    /// `.deviceGone` (no crash, no hang), and close releases everything.
    func testVanishingMidWaitEndsWithDeviceGone() throws {
        let session = try CameraSession(path: node, configuration: CaptureConfiguration(size: FrameSize(width: 320, height: 180),
                                                                                        frameTimeout: .seconds(30)))
        _ = try session.nextFrame { _ in () }
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<CaptureErrorCode?>(nil)
        // Handed to the capture thread; this thread touches it again only after `done`.
        let handOff = Locked(session)
        Thread.detachNewThread {
            let session = handOff.get()
            while true {
                do {
                    _ = try session.nextFrame { _ in () }
                } catch {
                    outcome.set((error as? CaptureError)?.code)
                    break
                }
            }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        try Vivid.setBound(false, device: platformDevice)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "capture hung after the device vanished")
        XCTAssertEqual(outcome.get(), .deviceGone)
        session.close()
        try Vivid.setBound(true, device: platformDevice)
    }

    /// The runner reports the outage, counts it, and resumes by itself when the node returns.
    func testRunnerRecoversAfterUnbindAndBind() throws {
        let runner = CameraRunner(path: node, retryInterval: .milliseconds(100)) { _ in
            CaptureConfiguration(size: FrameSize(width: 320, height: 180), frameTimeout: .seconds(5))
        }
        let frames = Locked(0)
        let events = Locked<[String]>([])
        let stop = Locked(false)
        let finished = DispatchSemaphore(value: 0)
        // Handed to the capture thread; this thread reads its statistics only after `finished`.
        let handOff = Locked(runner)
        Thread.detachNewThread {
            handOff.get().run(shouldStop: { stop.get() }, onEvent: { event in
                switch event {
                case .opened: events.withLock { $0.append("opened") }
                case .lost(let error, let outage): events.withLock { $0.append("lost \(error.code.rawValue) \(outage)") }
                case .restored(_, let outage): events.withLock { $0.append("restored \(outage)") }
                case .retrying(let error): events.withLock { $0.append("retrying \(error.code.rawValue)") }
                case .failed(let error): events.withLock { $0.append("failed \(error.message)") }
                }
            }, onFrame: { _ in
                frames.withLock { $0 += 1 }
                return true
            })
            finished.signal()
        }
        XCTAssertTrue(wait(seconds: 20) { frames.get() >= 5 }, "no frames: \(events.get())")
        try Vivid.setBound(false, device: platformDevice)
        XCTAssertTrue(wait(seconds: 10) { events.get().contains { $0.hasPrefix("lost") } }, "outage not reported: \(events.get())")
        XCTAssertFalse(FileManager.default.fileExists(atPath: node), "the node is gone while unbound")
        Thread.sleep(forTimeInterval: 0.5)
        let before = frames.get()
        try Vivid.setBound(true, device: platformDevice)
        XCTAssertTrue(wait(seconds: 20) { events.get().contains("restored 1") && frames.get() >= before + 5 },
                      "capture did not resume: \(events.get()), \(frames.get()) frames")
        stop.set(true)
        XCTAssertEqual(finished.wait(timeout: .now() + 15), .success)
        XCTAssertEqual(runner.statistics.outages, 1)
        XCTAssertEqual(events.get().filter { $0.hasPrefix("lost") }.count, 1, "\(events.get())")
    }

    private func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }
}
