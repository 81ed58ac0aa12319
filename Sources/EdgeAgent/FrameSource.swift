import EdgeCapture
import EdgeImaging
import Glibc

/// Where a camera service's frames come from: a V4L2 camera (`V4L2FrameSource`) or images
/// replayed at a frame rate (`ReplayFrameSource`, the host stand-in for a camera in tests and
/// benchmarks). `capture` blocks on its own thread until `shouldStop` or `onFrame` says stop.
public protocol FrameSource: AnyObject {
    /// The device or file list, for messages.
    var origin: String { get }
    func capture(shouldStop: () -> Bool, onEvent: (FrameSourceEvent) -> Void, onFrame: (SourceFrame) -> Bool)
}

/// One frame handed to the decoder: luminance valid only during the `onFrame` call.
public struct SourceFrame {
    public let sequence: UInt32
    /// When the frame was dequeued; SCN-8 latency is measured from here.
    public let dequeuedAt: ContinuousClock.Instant
    public let luma: ImageView

    public init(sequence: UInt32, dequeuedAt: ContinuousClock.Instant, luma: ImageView) {
        self.sequence = sequence
        self.dequeuedAt = dequeuedAt
        self.luma = luma
    }
}

/// What a source says about itself, for logs, metrics and status.
public enum FrameSourceEvent: Sendable {
    /// Streaming; `description` says what (card, format).
    case up(description: String)
    /// Gone for now (unplugged, timing out); the source keeps trying.
    case down(reason: String)
    /// Unusable until the configuration changes (wrong format, not a camera).
    case failed(reason: String)
}

/// A V4L2 camera through `CameraRunner` (HW-1..4): opened when present, re-opened after an
/// unplug, configured per model from edge.json's `cameras` section.
public final class V4L2FrameSource: FrameSource {
    public let origin: String
    private let runner: CameraRunner

    /// `models` picks the settings by USB vendor:product; `override`, when given, is used for
    /// whatever camera is at `device` (a camera without a USB id, such as vivid in tests).
    public init(device: String, models: [String: CaptureConfiguration], override: CaptureConfiguration? = nil,
                driver: any VideoDriver = LibV4L2Driver()) {
        origin = device
        runner = CameraRunner(path: device, driver: driver) { identity in
            override ?? CameraSettings.configuration(for: identity, in: models)
        }
    }

    public func capture(shouldStop: () -> Bool, onEvent: (FrameSourceEvent) -> Void, onFrame: (SourceFrame) -> Bool) {
        runner.run(first: nil, shouldStop: shouldStop, onEvent: { event in
            switch event {
            case .opened(let format, let capabilities, _):
                onEvent(.up(description: "\(capabilities.card), \(format)"))
            case .restored:
                onEvent(.up(description: "back after an outage"))
            case .lost(let error, _):
                onEvent(.down(reason: error.message))
            case .retrying(let error):
                onEvent(.down(reason: error.message))
            case .failed(let error):
                onEvent(.failed(reason: error.message))
            }
        }, onFrame: { frame in
            onFrame(SourceFrame(sequence: frame.sequence, dequeuedAt: frame.dequeuedAt, luma: frame.luma))
        })
    }
}

/// Images replayed in a loop at `fps`, paced by the monotonic clock like a camera's frames.
/// Decision: a file that cannot be loaded makes the source `failed` (a test or benchmark set up
/// wrong should say so, not stream nothing).
public final class ReplayFrameSource: FrameSource {
    public let origin: String
    private let files: [String]
    private let fps: Double

    public init(files: [String], fps: Double) {
        self.files = files
        self.fps = fps
        origin = "replay:" + files.joined(separator: ",")
    }

    public func capture(shouldStop: () -> Bool, onEvent: (FrameSourceEvent) -> Void, onFrame: (SourceFrame) -> Bool) {
        var images: [GrayImage] = []
        for file in files {
            do {
                images.append(try ImageLoader.load(path: file))
            } catch {
                onEvent(.failed(reason: error.message))
                return
            }
        }
        guard !images.isEmpty else {
            onEvent(.failed(reason: "no images to replay"))
            return
        }
        onEvent(.up(description: "\(images.count) image\(images.count == 1 ? "" : "s") at \(fps) fps"))
        let clock = ContinuousClock()
        let interval = Duration.nanoseconds(Int64(1_000_000_000 / fps))
        var next = clock.now
        var sequence: UInt32 = 0
        while !shouldStop() {
            let now = clock.now
            if next > now {
                Self.sleep(min(next - now, .milliseconds(50)))
                continue
            }
            next = next + interval
            // A slow decoder drops frames as a camera would instead of building a backlog.
            if clock.now - next > interval * 2 { next = clock.now + interval }
            let image = images[Int(sequence) % images.count]
            let keepGoing = image.pixels.withUnsafeBufferPointer { pixels in
                onFrame(SourceFrame(sequence: sequence, dequeuedAt: clock.now,
                                    luma: ImageView(width: image.width, height: image.height, rowStride: image.rowStride, pixels: pixels)))
            }
            if !keepGoing { return }
            sequence &+= 1
        }
    }

    private static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
