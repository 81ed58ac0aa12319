/// Copies between `[UInt8]` and the fixed-size C arrays of TPM2B_* structures, which Swift
/// imports as homogeneous tuples of UInt8.
enum CBuffer {
    /// Copies `bytes` into the start of `storage`; the caller has checked the size against the
    /// TPM limit, so the bound here only guards against a programming error.
    static func store<Storage>(_ bytes: [UInt8], into storage: inout Storage) -> UInt16 {
        withUnsafeMutableBytes(of: &storage) { raw in
            let count = min(bytes.count, raw.count)
            raw.copyBytes(from: bytes.prefix(count))
            return UInt16(count)
        }
    }

    /// The first `count` bytes of `storage`, clamped to its capacity so a hostile size field
    /// can never read past the C array.
    static func load<Storage>(_ storage: Storage, count: Int) -> [UInt8] {
        withUnsafeBytes(of: storage) { raw in Array(raw.prefix(max(0, min(count, raw.count)))) }
    }

    /// Like `load(_:count:)`, but reads in place through `pointer`, so a secret (the output of
    /// Esys_Unseal) is not first copied whole into a temporary that nobody wipes.
    static func load<Storage>(from pointer: UnsafeMutablePointer<Storage>, count: Int) -> [UInt8] {
        UnsafeRawBufferPointer(start: pointer, count: MemoryLayout<Storage>.size)
            .prefix(max(0, min(count, MemoryLayout<Storage>.size)))
            .map { $0 }
    }
}
