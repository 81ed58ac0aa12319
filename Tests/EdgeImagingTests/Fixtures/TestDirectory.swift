import Glibc

/// A fresh directory under /tmp for one test's files, removed by `remove()`.
struct TestDirectory {
    let path: String

    init() {
        var template = Array("/tmp/edge-imaging-tests-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.map { UInt8(bitPattern: $0) }.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Writes `bytes` to `name` inside the directory and returns the full path.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(file)")
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            precondition(n > 0, "write failed")
            done += n
        }
        return file
    }

    func mkdir(_ name: String) -> String {
        let dir = path + "/" + name
        precondition(Glibc.mkdir(dir, 0o755) == 0)
        return dir
    }

    func remove() {
        _ = system("rm -rf '\(path)'")
    }
}
