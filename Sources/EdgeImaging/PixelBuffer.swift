/// Allocation of decoded pixel arrays without a zero-fill pass (the decoder writes every byte).
enum PixelBuffer {
    /// An array of `count` bytes filled by `fill`, which must initialise all of them or throw.
    static func make(count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> Void) throws(ImageError) -> [UInt8] {
        var failure: ImageError?
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(ImageError) {
                try fill(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return pixels
    }
}
