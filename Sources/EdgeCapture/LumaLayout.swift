/// Where the 8-bit luminance of a frame lives (SCN-2).
public enum LumaLayout: Sendable, Hashable {
    /// The first `height` rows of `bytesPerLine` bytes are Y: viewed in place, no copy.
    case plane
    /// Packed 4:2:2 (YUYV): Y is every other byte. `ImageView` has no pixel stride, so one pass
    /// copies Y out into a reusable buffer (no RGB round trip, no allocation per frame).
    case interleavedEven
}
