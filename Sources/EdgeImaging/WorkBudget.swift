import EdgeCore

/// Why an image transform (a scan pass's step) refused to run or stopped, in the project's one
/// error shape: a machine-readable `code`, a one-line `message`, and `context` with the
/// operation, the sizes and the limit.
public typealias TransformError = CodedError<TransformErrorCode>

public enum TransformErrorCode: String, Sendable, Hashable, CaseIterable {
    /// The image the transform would make (or a buffer it needs) exceeds `WorkBudget.maxPixels`.
    case tooLarge = "too-large"
    /// The deadline passed while the transform was running; its partial output is dropped.
    case outOfTime = "out-of-time"
    /// A parameter no caller should pass (a scale factor below 1, a negative margin).
    case badParameter = "bad-parameter"
}

/// The limits every transform works within (SCN-10): the same pixel budget the loaders apply to
/// decoded images, for every image a transform derives (padded, scaled, rotated, filtered) and
/// every per-pixel buffer it needs, and an optional deadline checked while it runs.
///
/// Sizes are computed before anything is allocated, with overflow-checked arithmetic: a hostile
/// header's shape (1,000,000 x 2) must yield an error, never a trap or a 240 GB allocation.
public struct WorkBudget: Sendable, Equatable {
    /// Largest `width * height` of any image or per-pixel buffer a transform allocates.
    public var maxPixels: Int
    /// When set, a running transform stops with `.outOfTime` once this instant has passed.
    public var deadline: ContinuousClock.Instant?

    public init(maxPixels: Int = ImageLimits.defaultMaxPixels, deadline: ContinuousClock.Instant? = nil) {
        self.maxPixels = maxPixels
        self.deadline = deadline
    }

    /// The loaders' default pixel budget and no deadline.
    public static let standard = WorkBudget()

    /// `width * height` if both are non-negative and the product fits the budget; otherwise a
    /// `.tooLarge` error naming `operation` and the size it would have made.
    @discardableResult
    public func checkSize(width: Int, height: Int, for operation: String) throws(TransformError) -> Int {
        guard width >= 0, height >= 0 else {
            throw TransformError(.tooLarge, "\(operation) would make a \(width) x \(height) image (a negative size)",
                                 context: ["operation": operation, "width": "\(width)", "height": "\(height)"])
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            let count = overflow ? "more than \(Int.max)" : "\(pixels)"
            throw TransformError(.tooLarge,
                                 "\(operation) would make a \(width) x \(height) image (\(count) pixels); the limit is \(maxPixels)",
                                 context: ["operation": operation, "width": "\(width)", "height": "\(height)",
                                           "pixels": count, "limit": "\(maxPixels)"])
        }
        return pixels
    }

    /// A side computed in floating point (rotation): refuses NaN, infinities and values beyond
    /// the budget before they are converted to `Int` (a conversion that would otherwise trap).
    public func checkedSide(_ value: Double, for operation: String) throws(TransformError) -> Int {
        guard value.isFinite, value >= 0, value <= Double(maxPixels) else {
            throw TransformError(.tooLarge, "\(operation) would make an image side of \(value) pixels; the limit is \(maxPixels) pixels",
                                 context: ["operation": operation, "side": "\(value)", "limit": "\(maxPixels)"])
        }
        return Int(value.rounded(.up))
    }

    /// Throws `.outOfTime` when the deadline has passed.
    public func checkTime(for operation: String) throws(TransformError) {
        guard let deadline, ContinuousClock.now >= deadline else { return }
        throw TransformError(.outOfTime, "\(operation) stopped: the time budget ran out", context: ["operation": operation])
    }

    /// A meter for one transform's loop: call `advance(by:)` with the pixels each row (or other
    /// unit) processed; the clock is read only every `band` pixels, so the check costs nothing
    /// measurable while a 1,000,000-pixel row still gets checked on every row.
    public func meter(_ operation: String) -> Meter { Meter(budget: self, operation: operation) }

    public struct Meter {
        @usableFromInline let budget: WorkBudget
        @usableFromInline let operation: String
        @usableFromInline var pending = 0
        /// Pixels between clock reads: about 50-200 µs of work in these loops.
        @usableFromInline static let band = 1 << 16

        init(budget: WorkBudget, operation: String) {
            self.budget = budget
            self.operation = operation
        }

        @inlinable
        public mutating func advance(by pixels: Int) throws(TransformError) {
            guard budget.deadline != nil else { return }
            pending &+= pixels
            if pending >= Self.band {
                pending = 0
                try budget.checkTime(for: operation)
            }
        }
    }
}

extension GrayImage {
    /// A `fill`-coloured image of the given size, after checking the size against `budget`
    /// (the unchecked initialiser traps on a negative size and multiplies without a check).
    public init(width: Int, height: Int, fill: UInt8 = 255, budget: WorkBudget, for operation: String) throws(TransformError) {
        let count = try budget.checkSize(width: width, height: height, for: operation)
        self.init(width: width, height: height, rowStride: width, pixels: [UInt8](repeating: fill, count: count))
    }
}
