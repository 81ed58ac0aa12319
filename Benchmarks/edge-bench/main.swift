// edge-bench: the in-process half of Benchmarks/run.py. It prints JSON Lines that run.py puts
// side by side with zbarimg and zxing-cpp from the same run.
//
//   edge-bench photos DIR [--plain] [--passes A,B] [--serve] [--once]  decode every <name>.<png|jpg> under
//                                          DIR's folders (--serve: the "folder/name" lines read from stdin;
//                                          --once: one read per photo without the time budget, for
//                                          instruction counts under valgrind, where a wall-clock bound
//                                          would change the work done)
//   edge-bench vault [REPS [BACKEND [TCTI]]]  time sealing (put) and opening (get) a 1 KB secret,
//                                          and the TPM's seal/unseal on their own
//   edge-bench frame FILE FORMATS [REPS]   time one frame repeatedly at 30 fps with a symbology set,
//                                          with the camera preset (EDGE_FRAME_OPTIONS=still: full plan)
//   edge-bench sequence FORMATS FILE...    read frames in order at 30 fps: first frame with a read
//   edge-bench sync N BASE_URL TOKEN       N durable enqueues (latency each), then drain them all to
//                                          the stand-in at BASE_URL through the real sender
//   edge-bench push N RATE BASE_URL SA CA  N notifications end to end through the relay to the FCM
//                                          stand-in at BASE_URL (HTTPS, CA), paced at RATE/s, then all at once
import EdgeCrypto
import EdgeImaging
import EdgePush
import EdgeScanning
import EdgeTPM
import EdgeVault
import Foundation

func formats(forFolder folder: String) -> Set<BarcodeFormat> {
    if folder.hasPrefix("qrcode") { return [.qr] }
    if folder.hasPrefix("code128") { return [.code128] }
    // zxing-cpp's Code39 format includes Code 32 (and PZN, which edge reads as plain Code 39),
    // so edge runs with the same set there.
    if folder.hasPrefix("code39") { return [.code39, .code32] }
    if folder.hasPrefix("ean13") { return [.ean13] }
    return BarcodeFormat.standard
}

func json(_ object: [String: Any]) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
}

/// Median wall time of `body` in milliseconds over at least 3 and at most 15 runs (or ~300 ms).
func medianMillis(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var samples: [Double] = []
    let start = clock.now
    while samples.count < 15 && (samples.count < 3 || clock.now - start < .milliseconds(300)) {
        let t0 = clock.now
        try body()
        let d = clock.now - t0
        samples.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }
    samples.sort()
    return samples[samples.count / 2]
}

func photos(_ root: String, plain: Bool, passes: [ScanPass]?, serve: Bool, once: Bool) throws {
    var readers: [String: BarcodeReader] = [:]
    /// One reader per folder (its symbology), made on first use.
    func reader(for folder: String) throws -> BarcodeReader {
        if let r = readers[folder] { return r }
        var options = plain ? ReaderOptions.plainOnly(formats: formats(forFolder: folder)) : ReaderOptions(formats: formats(forFolder: folder))
        if let passes { options.passes = passes }
        if once { options.timeBudget = .seconds(3600) }
        let r = try BarcodeReader(options: options)
        readers[folder] = r
        return r
    }
    func decode(_ file: String) -> String {
        let folder = String(file.split(separator: "/").first ?? "")
        do {
            let reader = try reader(for: folder)
            let image = try ImageLoader.load(path: root + "/" + file)
            var results: [ScanResult] = []
            let ms = once ? 0 : try medianMillis { results = try reader.read(image) }
            if once { results = try reader.read(image) }
            return json(["file": file, "texts": results.map(\.text), "passes": results.map { $0.pass.description },
                         "points": results.map { $0.points.map { [$0.x, $0.y] } }, "quality": results.map(\.quality), "ms": ms])
        } catch {
            return json(["file": file, "error": "\(error)"])
        }
    }
    if serve {
        // run.py's interleaved mode: one "folder/name" per line on stdin, one JSON line back per
        // image, so edge and zxing-cpp are timed photo by photo under the same machine load.
        while let line = readLine() {
            FileHandle.standardOutput.write(Data((decode(line) + "\n").utf8))  // unbuffered: run.py waits for it
        }
        return
    }
    let fm = FileManager.default
    for folder in try fm.contentsOfDirectory(atPath: root).sorted() {
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: root + "/" + folder, isDirectory: &isDir), isDir.boolValue else { continue }
        for name in try fm.contentsOfDirectory(atPath: root + "/" + folder).sorted() where name.hasSuffix(".png") || name.hasSuffix(".jpg") {
            print(decode(folder + "/" + name))
        }
    }
}

/// The reader options `frame` and `sequence` use: the camera preset, or with
/// EDGE_FRAME_OPTIONS=still the full still-image plan; EDGE_FRAME_WHOLE=every scans the whole
/// frame after every empty regions pass (the preset before `wholeFrameInterval`).
func frameOptions(_ list: String) throws -> (options: ReaderOptions, label: String) {
    let formats = try BarcodeFormat.parseList(list)
    let environment = ProcessInfo.processInfo.environment
    let still = environment["EDGE_FRAME_OPTIONS"] == "still"
    var options = still ? ReaderOptions(formats: formats) : .cameraFrame(formats: formats)
    var label = still ? "still" : "camera"
    if environment["EDGE_FRAME_WHOLE"] == "every" { options.wholeFrameInterval = nil; label += ", whole frame every frame" }
    // Experiments: EDGE_FRAME_DENSITY and EDGE_FRAME_PASSES override the preset.
    if let d = environment["EDGE_FRAME_DENSITY"].flatMap({ Int($0) }) { options.scanDensity = d }
    if let p = environment["EDGE_FRAME_PASSES"] {
        options.passes = try p.split(separator: ",").map { try ScanPass(parsing: String($0)) }
        options.maxPasses = options.passes?.count ?? 1
    }
    return (options, label)
}

/// `image` with Gaussian noise of `sigma` grey levels added to every pixel (Box-Muller on a
/// seeded xorshift, so a run can be repeated).
func withNoise(_ image: GrayImage, sigma: Double, seed: UInt64) -> GrayImage {
    var state = 0x9E37_79B9_7F4A_7C15 ^ (seed &+ 1) &* 0xBF58_476D_1CE4_E5B9
    func uniform() -> Double {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return (Double((state &* 2685821657736338717) >> 11) + 0.5) / Double(1 << 53)
    }
    var out = image
    for i in out.pixels.indices {
        let g = (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
        out.pixels[i] = UInt8(clamping: Int((Double(out.pixels[i]) + sigma * g).rounded()))
    }
    return out
}

/// A camera's cadence: the reader gets a frame every 1/30 s, so `wholeFrameInterval` (which is
/// time-based) behaves as it does on a station; reads back to back would scan the whole frame
/// far less often than a 30 fps camera does.
let frameInterval = Duration.nanoseconds(1_000_000_000 / 30)

func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }

/// Decodes one frame `reps` times at 30 fps: median, p90 and mean (the amortized cost per frame
/// of an idle camera, which the median of a preset that skips work on most frames hides).
/// With EDGE_FRAME_NOISE=sigma every frame is the image under fresh sensor noise (eight frames
/// made before timing, in turn): a real idle camera, whose frames are never equal.
func frame(_ path: String, _ list: String, reps: Int) throws {
    let image = try ImageLoader.load(path: path)
    let (options, preset) = try frameOptions(list)
    var label = preset
    var frames = [image]
    if let sigma = ProcessInfo.processInfo.environment["EDGE_FRAME_NOISE"].flatMap({ Double($0) }), sigma > 0 {
        frames = (0..<8).map { seed in withNoise(image, sigma: sigma, seed: UInt64(seed)) }
        label += ", sensor noise sigma \(sigma)"
    }
    let reader = try BarcodeReader(options: options)
    _ = try reader.read(image)  // warm-up
    let clock = ContinuousClock()
    var samples: [Double] = []
    var found = 0
    var next = clock.now
    for index in 0..<reps {
        next = next + frameInterval
        let frame = frames[index % frames.count]
        let t0 = clock.now
        let r = try reader.read(frame)
        let d = clock.now - t0
        found = r.count
        samples.append(milliseconds(d))
        if next > clock.now { Thread.sleep(forTimeInterval: milliseconds(next - clock.now) / 1000) } else { next = clock.now }
    }
    let mean = samples.reduce(0, +) / Double(samples.count)
    samples.sort()
    print(json(["frame": path, "formats": list, "options": label, "median_ms": samples[samples.count / 2],
                "p90_ms": samples[samples.count * 9 / 10], "mean_ms": mean, "codes": found]))
}

/// A recorded view, frame by frame at 30 fps: the index of the first frame with a read, and
/// the mean decode time per frame.
func sequence(_ list: String, _ paths: [String]) throws {
    let frames = try paths.map { try ImageLoader.load(path: $0) }
    let (options, label) = try frameOptions(list)
    let reader = try BarcodeReader(options: options)
    let clock = ContinuousClock()
    var firstRead: Int?
    var total = Duration.zero
    var next = clock.now
    for (index, image) in frames.enumerated() {
        next = next + frameInterval
        let t0 = clock.now
        let results = try reader.read(image)
        total += clock.now - t0
        if firstRead == nil && !results.isEmpty { firstRead = index }
        if next > clock.now { Thread.sleep(forTimeInterval: milliseconds(next - clock.now) / 1000) } else { next = clock.now }
    }
    print(json(["formats": list, "options": label, "frames": frames.count, "first_read": firstRead.map { $0 as Any } ?? NSNull(),
                "mean_ms": milliseconds(total) / Double(max(1, frames.count))]))
}

/// Vault put/get of a 1 KB secret in a temporary keyfile vault: each operation is the whole
/// durable path (key file checks, HKDF, AES-GCM, temp file, fsync, rename, directory fsync).
func vault(reps: Int, backend: VaultBackendChoice, tcti: String) throws {
    let dir = NSTemporaryDirectory() + "edge-bench-vault-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let v = try Vault(directory: dir, backend: backend, tcti: tcti)
    let name = try SecretName("bench")
    let value = SecureBytes(try Random.bytes(1024))
    try v.put(value, name: name)
    var put: [Double] = [], get: [Double] = []
    let clock = ContinuousClock()
    func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
    for _ in 0..<reps {
        let t0 = clock.now
        try v.put(value, name: name)
        let t1 = clock.now
        _ = try v.get(name)
        let t2 = clock.now
        put.append(ms(t1 - t0)); get.append(ms(t2 - t1))
    }
    // The TPM's own cost, which a vault pays once per key generation and process: seal and
    // unseal of a 32-byte data key, each recreating the storage primary.
    var tpmFigures: [String: Any] = [:]
    if backend != .keyfile {
        let tpm = try TPMContext(tcti: tcti)
        var seal: [Double] = [], unseal: [Double] = []
        for _ in 0..<max(3, reps / 20) {
            let t0 = clock.now
            let blob = try tpm.seal(try Random.bytes(32))
            let t1 = clock.now
            _ = try tpm.unseal(blob)
            let t2 = clock.now
            seal.append(ms(t1 - t0)); unseal.append(ms(t2 - t1))
        }
        seal.sort(); unseal.sort()
        tpmFigures = ["tpm_seal_median_ms": seal[seal.count / 2], "tpm_unseal_median_ms": unseal[unseal.count / 2]]
    }
    put.sort(); get.sort()
    var figures: [String: Any] = tpmFigures
    figures["backend"] = v.backend.description
    figures["secret_bytes"] = 1024
    figures["put_median_ms"] = put[put.count / 2]
    figures["put_p90_ms"] = put[put.count * 9 / 10]
    figures["get_median_ms"] = get[get.count / 2]
    figures["get_p90_ms"] = get[get.count * 9 / 10]
    print(json(figures))
}

let args = CommandLine.arguments
do {
    switch args.count > 1 ? args[1] : "" {
    case "photos" where args.count >= 3:
        var passes: [ScanPass]? = nil
        if let i = args.firstIndex(of: "--passes"), i + 1 < args.count {
            passes = try args[i + 1].split(separator: ",").map { try ScanPass(parsing: String($0)) }
        }
        try photos(args[2], plain: args.contains("--plain"), passes: passes, serve: args.contains("--serve"), once: args.contains("--once"))
    case "vault":
        // edge-bench vault [REPS [BACKEND [TCTI]]]
        let backend = args.count > 3 ? VaultBackendChoice(rawValue: args[3]) ?? .keyfile : .keyfile
        try vault(reps: args.count > 2 ? Int(args[2]) ?? 200 : 200, backend: backend,
                  tcti: args.count > 4 ? args[4] : "device:/dev/tpmrm0")
    case "sync" where args.count >= 5:
        try await syncBench(count: Int(args[2]) ?? 1000, baseURL: args[3], token: args[4])
    case "push" where args.count >= 7:
        try await pushBench(count: Int(args[2]) ?? 10000, rate: Double(args[3]) ?? 5000, baseURL: args[4], serviceAccountPath: args[5], caFile: args[6],
                            maxInFlight: args.count > 7 ? Int(args[7]) ?? PushSender.defaultMaxInFlight : PushSender.defaultMaxInFlight,
                            runs: args.count > 8 ? Set(args[8].split(separator: ",").map(String.init)) : ["paced", "saturated"])
    case "frame" where args.count >= 4:
        try frame(args[2], args[3], reps: args.count > 4 ? Int(args[4]) ?? 50 : 50)
    case "sequence" where args.count >= 4:
        try sequence(args[2], Array(args[3...]))
    default:
        FileHandle.standardError.write(Data("usage: edge-bench photos DIR [--plain] [--passes A,B] [--serve] | frame FILE FORMATS [REPS] | sequence FORMATS FILE... | vault [REPS [BACKEND [TCTI]]] | sync N BASE_URL TOKEN | push N RATE BASE_URL SERVICE_ACCOUNT CA_FILE [MAX_IN_FLIGHT [paced,saturated]]\n".utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("edge-bench: \(error)\n".utf8))
    exit(1)
}
