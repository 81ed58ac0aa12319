import Glibc
import Testing
@testable import EdgeImaging

@Suite struct ImageFileTests {
    @Test func readsWholeFiles() throws {
        let dir = TestDirectory()
        defer { dir.remove() }
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = dir.write("blob", bytes)
        #expect(try ImageFile.readAll(path: path, maxBytes: 1 << 20) == bytes)
    }

    @Test func nonexistentPathIsNotFound() {
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(path: "/nonexistent/dir/scan.png") }
        #expect(error?.code == .notFound)
        #expect(error?.message == "/nonexistent/dir/scan.png: no such file")
    }

    @Test func directoryIsUnreadable() {
        let dir = TestDirectory()
        defer { dir.remove() }
        let sub = dir.mkdir("pictures.png")
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(path: sub) }
        #expect(error?.code == .unreadableFile)
        #expect(error?.message == "\(sub): is a directory, not an image file")
    }

    @Test func zeroByteFileIsEmpty() {
        let dir = TestDirectory()
        defer { dir.remove() }
        let path = dir.write("empty.jpg", [])
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(path: path) }
        #expect(error?.code == .empty)
        #expect(error?.message == "\(path): empty file (0 bytes)")
    }

    @Test func oversizedFileIsRefusedFromFstat() {
        let dir = TestDirectory()
        defer { dir.remove() }
        let path = dir.write("big.pgm", Array(repeating: 0x50, count: 5000))
        let error = #expect(throws: ImageError.self) {
            try ImageLoader.load(path: path, limits: ImageLimits(maxFileBytes: 4096))
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.reason.contains("4096-byte limit") == true)
        // Exactly at the limit is fine (and then simply not an image).
        let exact = dir.write("exact", Array(repeating: 0x20, count: 4096))
        #expect(throws: ImageError.self) { try ImageLoader.load(path: exact, limits: ImageLimits(maxFileBytes: 4096)) }
        #expect((try? ImageFile.readAll(path: exact, maxBytes: 4096))?.count == 4096)
    }

    @Test func filesWithoutAStatSizeAreReadToTheEnd() throws {
        // /proc files report size 0 in fstat; the read loop must still get everything, capped.
        let status = try ImageFile.readAll(path: "/proc/self/status", maxBytes: 1 << 20)
        #expect(String(decoding: status, as: UTF8.self).contains("VmHWM"))
        let error = #expect(throws: ImageError.self) { try ImageFile.readAll(path: "/proc/self/status", maxBytes: 64) }
        #expect(error?.code == .tooLarge)
    }

    @Test func endlessDeviceIsCappedNotExhausted() {
        let error = #expect(throws: ImageError.self) { try ImageLoader.load(path: "/dev/zero", limits: ImageLimits(maxFileBytes: 1 << 20)) }
        #expect(error?.code == .tooLarge)
    }
}
