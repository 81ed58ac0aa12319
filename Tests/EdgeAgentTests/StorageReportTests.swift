@testable import EdgeAgent
import EdgeCore
import EdgeTestSupport
import Glibc
import Testing

/// The storage part of status and /metrics (issue #30 item 1): the thresholds decided in
/// `StorageReport`, how a recorded failure passes, the one-line detail per disk, the words of
/// `StorageProblem`, and the log's `FailureRun`. The disks themselves (a full tmpfs, a read-only
/// remount) are `StorageFaultTests`' (EdgeCLITests).
struct StorageReportTests {
    static let mib: UInt64 = 1 << 20

    static func space(_ directory: String, free: UInt64, size: UInt64 = 32 << 20, readOnly: Bool = false, device: UInt64 = 1,
                      files: UInt64? = 1000) -> StorageSpace {
        StorageSpace(directory: directory, freeBytes: free, sizeBytes: size, freeFiles: files, readOnly: readOnly, device: device)
    }

    static func report(_ spaces: [String: StorageSpace], failures: [String: StorageFailure] = [:],
                       places: [(holds: String, directory: String)] = [("database", "/s"), ("vault", "/s/vault")]) -> StorageReport {
        StorageReport.assess(places, failures: failures) { spaces[$0] }
    }

    @Test func lowAndFullThresholds() {
        // 32 MiB disk: low below 4 MiB (10 % is 3.2 MiB, the floor is 4 MiB), full below 1 MiB.
        #expect(Self.report(["/s": Self.space("/s", free: 10 * Self.mib), "/s/vault": Self.space("/s", free: 10 * Self.mib)]).state == .ok)
        let low = Self.report(["/s": Self.space("/s", free: 3 * Self.mib), "/s/vault": Self.space("/s", free: 3 * Self.mib)])
        #expect(low.state == .degraded)
        #expect(low.detail == "the disk holding /s is low on space: 3 MiB free of 32 MiB (warns below 4 MiB) (database, vault)")
        #expect(low.failures.isEmpty)
        let full = Self.report(["/s": Self.space("/s", free: 512 << 10), "/s/vault": Self.space("/s", free: 512 << 10)])
        #expect(full.state == .failed)
        #expect(full.places.allSatisfy { $0.cause == "full" })
        #expect(full.detail == "the disk holding /s is full: 512 KiB free (database, vault)")
        // A terabyte: 10 % would warn with 100 GiB left; the cap is 1 GiB.
        let tib: UInt64 = 1 << 40
        #expect(StorageReport.lowSpaceBytes(size: tib) == 1 << 30)
        #expect(Self.report(["/s": Self.space("/s", free: 2 << 30, size: tib), "/s/vault": Self.space("/s", free: 2 << 30, size: tib)]).state == .ok)
        #expect(Self.report(["/s": Self.space("/s", free: 900 * Self.mib, size: tib), "/s/vault": Self.space("/s", free: 900 * Self.mib, size: tib)]).state == .degraded)
        // No inodes left is full too, whatever the bytes.
        let noFiles = Self.report(["/s": Self.space("/s", free: 20 * Self.mib, files: 0), "/s/vault": Self.space("/s", free: 20 * Self.mib, files: 0)])
        #expect(noFiles.state == .failed)
        #expect(noFiles.places.first?.cause == "no-free-files")
    }

    @Test func readOnlyFailsWithItsWords() {
        let report = Self.report(["/s": Self.space("/s", free: 20 * Self.mib, readOnly: true), "/s/vault": Self.space("/s", free: 20 * Self.mib, readOnly: true)])
        #expect(report.state == .failed)
        #expect(report.places.map(\.detail) == ["/s is on a read-only file system", "/s/vault is on a read-only file system"])
        #expect(report.places.allSatisfy { $0.readOnly == true && $0.cause == "read-only" })
    }

    /// A full disk's failure passes when the disk has room again (nobody writes to prove it); an
    /// I/O error stays until a write succeeds (`StorageMonitor.succeeded`).
    @Test func recordedFailuresPass() {
        let roomy = ["/s": Self.space("/s", free: 20 * Self.mib), "/s/vault": Self.space("/s", free: 20 * Self.mib)]
        let full = StorageFailure(StorageProblem(.full, directory: "/s", freeBytes: 0), message: "could not record a scan event", since: 5)
        #expect(Self.report(roomy, failures: ["database": full]).state == .ok)
        #expect(Self.report(roomy, failures: ["database": full]).places[0].lastError == nil)
        let io = StorageFailure(StorageProblem(.ioError, directory: "/s"), message: "could not record a scan event", since: 5)
        let failing = Self.report(roomy, failures: ["database": io])
        #expect(failing.state == .failed)
        #expect(failing.places[0].lastError == "could not record a scan event")
        #expect(failing.places[0].detail == "the disk holding /s reported an input/output error")
        #expect(failing.places[1].state == .ok)
    }

    /// One clause per disk, the failing first, the shortest directory naming it; `failures` (the
    /// line under `missing`) only the failing ones.
    @Test func detailIsOneLinePerDisk() {
        let places: [(holds: String, directory: String)] = [("vault", "/var/lib/edge/vault"), ("database", "/var/lib/edge"),
                                                            ("vault keys", "/var/lib/edge-keys"), ("status file", "/var/lib/edge")]
        let spaces = ["/var/lib/edge": Self.space("/var/lib/edge", free: 0), "/var/lib/edge/vault": Self.space("/var/lib/edge", free: 0),
                      "/var/lib/edge-keys": Self.space("/", free: 100 * Self.mib, size: 200 * Self.mib, device: 2)]
        let report = Self.report(spaces, places: places)
        #expect(report.detail == "the disk holding /var/lib/edge is full: 0 bytes free (database, status file, vault); "
                + "100 MiB free of 200 MiB on the disk holding /var/lib/edge-keys (vault keys)")
        #expect(report.failures == "the disk holding /var/lib/edge is full: 0 bytes free (database, status file, vault)")
        #expect(report.places.map(\.holds) == ["vault", "database", "vault keys", "status file"])
    }

    @Test func problemsAreWordedFromErrnoAndFromTheDisk() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/edge.sqlite"
        #expect(StorageProblem.diagnose(errno: EROFS, path: file)?.words == "\(directory.path) is on a read-only file system")
        let full = try #require(StorageProblem.diagnose(errno: ENOSPC, path: file))
        #expect(full.cause == .full)
        #expect(full.words.hasPrefix("the disk holding \(directory.path) is full: "))
        #expect(StorageProblem.diagnose(errno: ENOENT, path: directory.path + "/gone/edge.sqlite")?.words == "the directory \(directory.path)/gone does not exist")
        #expect(StorageProblem.diagnose(errno: EINVAL, path: file) == nil)
        // SQLite says "full" without an errno: the disk is looked at; a roomy one keeps the writer's word.
        #expect(StorageProblem.examine(path: file, likely: .full)?.cause == .full)
        #expect(StorageProblem.examine(path: file, likely: nil) == nil)
        #expect(StorageProblem.examine(path: directory.path + "/gone/edge.sqlite", likely: nil)?.cause == .missingDirectory)
        // Carried in an error's context and read back.
        #expect(StorageProblem(context: full.context) == full)
        #expect(StorageSpace.text(bytes: 0) == "0 bytes")
        #expect(StorageSpace.text(bytes: 3_460_000) == "3.2 MiB")
        #expect(StorageSpace.text(bytes: 50 << 30) == "50 GiB")
    }

    /// The camera's "scan event not recorded": once when a run of failures starts or changes
    /// kind, once more (with the count) when recording works again.
    @Test func failureRunLogsTheStartAndTheEnd() {
        var run = FailureRun()
        var logged: [Bool] = []
        var ended: [Int?] = [run.succeeded()]
        logged.append(run.failed(kind: "storage/full"))
        for _ in 0..<50 { logged.append(run.failed(kind: "storage/full")) }
        logged.append(run.failed(kind: "storage/read-only"))
        ended.append(run.succeeded())
        ended.append(run.succeeded())
        logged.append(run.failed(kind: "storage/full"))
        #expect(logged == [true] + Array(repeating: false, count: 50) + [true, true])
        #expect(ended == [nil, 52, nil])
    }
}
