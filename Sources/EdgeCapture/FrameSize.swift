/// A frame size a device offers.
public struct FrameSize: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixels: Int { width * height }
    public var description: String { "\(width)x\(height)" }

    public static func < (a: FrameSize, b: FrameSize) -> Bool { (a.pixels, a.width) < (b.pixels, b.width) }
}
