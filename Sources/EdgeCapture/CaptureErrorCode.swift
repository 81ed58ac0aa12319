/// What went wrong in capture, as callers branch on it (HW-2, HW-3).
public enum CaptureErrorCode: String, Sendable, Hashable {
    /// The device node does not exist (ENOENT): not plugged in, or not yet re-created by udev.
    case notFound = "not-found"
    /// The node exists but this user may not open it (EACCES/EPERM): group membership, udev rules.
    case permissionDenied = "permission-denied"
    /// Another process is streaming from the device (EBUSY).
    case busy
    /// The device went away while open (ENODEV, ENXIO, EIO, ESHUTDOWN): unplugged or unbound.
    /// The only code a supervisor treats as an outage to wait out (HW-3).
    case deviceGone = "device-gone"
    /// The node is not a V4L2 capture device with streaming I/O.
    case notACaptureDevice = "not-a-capture-device"
    /// The device offers no format edge can turn into luminance, or rejected the one asked for.
    case noUsableFormat = "no-usable-format"
    /// The device refused a request (EINVAL, ENOTTY): an unsupported ioctl, control or value.
    case unsupported
    /// No frame arrived within the timeout.
    case timedOut = "timed-out"
    /// The configuration asks for something impossible (zero buffers, unknown control name).
    case invalidConfiguration = "invalid-configuration"
    /// Any other system error; the context names the call and errno.
    case systemError = "system-error"
}
