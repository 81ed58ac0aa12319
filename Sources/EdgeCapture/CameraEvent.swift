/// What a `CameraRunner` reports besides frames (HW-3): the caller logs and counts these.
public enum CameraEvent: Sendable {
    /// Streaming started (first time, or again after an outage).
    case opened(CaptureFormat, DeviceCapabilities, CameraIdentity)
    /// The device went away or stopped delivering; `outage` counts from 1.
    case lost(CaptureError, outage: Int)
    /// Streaming again after an outage that lasted `downtime`.
    case restored(downtime: Duration, outage: Int)
    /// A re-open attempt during an outage failed for another reason than absence (permissions
    /// not yet set by udev, busy); it is retried.
    case retrying(CaptureError)
    /// The camera cannot be used at all (not a capture device, no usable format, bad
    /// configuration); the runner stops.
    case failed(CaptureError)
}
