/// One mmap'd driver buffer.
struct MappedBuffer {
    let index: UInt32
    let memory: UnsafeMutableRawBufferPointer
}
