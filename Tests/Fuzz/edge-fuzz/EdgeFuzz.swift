import Foundation

// Two builds of one program:
// - `Tests/Fuzz/run` builds it with `-sanitize=fuzzer,address -D EDGE_FUZZ`: libFuzzer's driver
//   runs and calls the two entry points below; EDGE_FUZZ_TARGET names the target.
// - The ordinary debug build has a `main` that replays files through a target without
//   sanitizers: `edge-fuzz TARGET FILE|DIR...`, to reproduce a crash in a debugger, and
//   `edge-fuzz --list`.
#if DEBUG && EDGE_FUZZ
/// The target of this process, chosen once from the environment before the first input.
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    let name = ProcessInfo.processInfo.environment["EDGE_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        FileHandle.standardError.write(Data("edge-fuzz: set EDGE_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    do {
        try target.prepare()
    } catch {
        FileHandle.standardError.write(Data("edge-fuzz: \(target.rawValue) could not be prepared: \(error)\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

/// libFuzzer's driver (`LLVMFuzzerRunDriver`, from the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                       _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// SwiftPM links an executable's `main` to `<module>_main`; with no top-level code that symbol
/// is this function, which hands the process to libFuzzer's driver (so libFuzzer's own `main`
/// is not needed).
@_cdecl("edge_fuzz_main")
public func edgeFuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        try target.run(bytes)
    } catch {
        // Only the harness's own set-up (a temporary file) throws; a parser's errors are answers.
        fatalError("edge-fuzz: the \(target.rawValue) harness failed: \(error)")
    }
    return 0
}
#else
@main
enum EdgeFuzz {
    static func main() {
        #if DEBUG
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--list" {
            for target in FuzzTarget.allCases { print(target.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + target.summary) }
            return
        }
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
            FileHandle.standardError.write(Data("usage: edge-fuzz TARGET FILE|DIR... | --list (fuzzing itself: Tests/Fuzz/run)\n".utf8))
            exit(2)
        }
        do {
            try target.prepare()
            var count = 0
            for path in arguments.dropFirst() {
                for file in files(at: path) {
                    try target.run(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
                    count += 1
                }
            }
            print("edge-fuzz: \(target.rawValue): \(count) inputs replayed, no crash")
        } catch {
            FileHandle.standardError.write(Data("edge-fuzz: \(error)\n".utf8))
            exit(1)
        }
        #else
        FileHandle.standardError.write(Data("edge-fuzz: the fuzz targets use internal parsers and need a debug build (Tests/Fuzz/run)\n".utf8))
        exit(2)
        #endif
    }

    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }
}
#endif
