import EdgeImaging

/// One captured frame as the decoder sees it: 8-bit luminance plus when and what it was.
///
/// `luma` points into a mapped driver buffer (GREY, NV12, YU12) or the session's Y buffer
/// (YUYV): it is valid only inside the `CameraSession.nextFrame` closure that received it.
public struct CameraFrame {
    /// The driver's frame counter; gaps mean dropped frames.
    public let sequence: UInt32
    /// When edge dequeued it; latency is measured from here (SCN-8).
    public let dequeuedAt: ContinuousClock.Instant
    public let format: CaptureFormat
    public let luma: ImageView
    /// True when `luma` is the driver's buffer itself, not a copy.
    public let zeroCopy: Bool
}
