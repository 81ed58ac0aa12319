import Dispatch
import EdgeAgent
import EdgeCapture
import EdgeCommandLine
import EdgeCore
import EdgePayloads
import EdgeScanning
import Glibc

/// `edge scan --camera DEV...`: live frames through the same reader and output as `--image`
/// (SCN-2, SCN-7, SCN-8, HW-3). Each camera runs on its own thread (its runner blocks in poll);
/// records from several cameras interleave line by line.
struct CameraScan: Sendable {
    let cameras: [String]
    let override: CameraOverride
    let frameLimit: Int?
    let timeLimit: Duration?
    let untilFound: Bool
    let readerOptions: ReaderOptions
    let classifier: PayloadClassifier
    let printer: ResultPrinter
    let settings: [String: CaptureConfiguration]
    let repeatGap: Duration

    /// The exit status, as for images: 0 every camera saw a code, 1 some saw none, 2 some camera
    /// could not be used.
    func run() -> Int32 {
        let stop = StopFlag()
        let signals = TerminationSignals { stop.set() }
        defer { signals.cancel() }
        let outcomes = Locked<[CameraScanOutcome]>([])
        let group = DispatchGroup()
        for path in cameras {
            DispatchQueue.global().async(group: group) {
                let outcome = scan(path, stop: stop)
                outcomes.withLock { $0.append(outcome) }
            }
        }
        group.wait()
        let all = outcomes.withLock { $0 }
        if all.contains(where: { $0 == .unusable }) { return 2 }
        if all.contains(where: { $0 == .nothingFound }) { return 1 }
        return 0
    }

    private func scan(_ path: String, stop: StopFlag) -> CameraScanOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        let settings = self.settings
        let override = self.override
        let runner = CameraRunner(path: path) { identity in
            override.apply(to: CameraSettings.configuration(for: identity, in: settings))
        }
        let pipeline: FramePipeline
        let first: CameraSession
        do {
            pipeline = try FramePipeline(options: readerOptions, repeatGap: repeatGap)
            first = try runner.openFirst()
        } catch {
            printer.printError(file: path, message: "\(error)")
            return .unusable
        }
        var frames = 0
        var reported = 0
        var decodeTimes: [Duration] = []
        var unusable = false
        runner.run(first: first, shouldStop: {
            stop.isSet || timeLimit.map { clock.now - started >= $0 } ?? false
        }, onEvent: { event in
            switch event {
            case .opened(let format, let caps, let identity):
                let usb = identity.usbID.map { " usb \($0)" } ?? ""
                Output.stderr("edge: \(path): \(Output.printable(caps.card))\(usb), capturing \(format)")
            case .lost(let error, let outage):
                Output.stderr("edge: \(path): \(Output.printable(error.message)); outage \(outage), waiting for it to return")
            case .restored(let downtime, let outage):
                Output.stderr("edge: \(path): back after \(Self.milliseconds(downtime)) ms (outage \(outage))")
            case .retrying(let error):
                Output.stderr("edge: \(path): not usable yet: \(Output.printable(error.message)); retrying")
            case .failed(let error):
                printer.printError(file: path, message: error.message)
                unusable = true
            }
        }, onFrame: { frame in
            frames += 1
            let reads: [FramePipeline.Read]
            do throws(ScanError) {
                reads = try pipeline.reads(in: SourceFrame(sequence: frame.sequence, dequeuedAt: frame.dequeuedAt, luma: frame.luma),
                                           classifier: classifier)
            } catch {
                Output.stderr("edge: \(path): frame \(frame.sequence): \(Output.printable(error.message))")
                return true
            }
            decodeTimes.append(clock.now - frame.dequeuedAt)
            for read in reads {
                var record = ScanRecord(file: path, result: read.result, classification: read.classification)
                record.frame = Int(frame.sequence)
                record.latencyMs = Self.milliseconds(clock.now - frame.dequeuedAt)
                printer.print(record)
                reported += 1
            }
            if untilFound && reported > 0 { return false }
            if let frameLimit, frames >= frameLimit { return false }
            return true
        })
        let elapsed = clock.now - started
        let stats = runner.statistics
        let sorted = decodeTimes.sorted()
        let p50 = sorted.isEmpty ? 0 : Self.milliseconds(sorted[sorted.count / 2])
        let p95 = sorted.isEmpty ? 0 : Self.milliseconds(sorted[min(sorted.count - 1, sorted.count * 95 / 100)])
        let fps = frames > 0 ? Double(frames) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) : 0
        Output.stderr("edge: \(path): \(frames) frames in \(Self.milliseconds(elapsed)) ms (\(Self.rounded(fps)) fps), \(reported) codes reported, "
                      + "frame-to-decode p50 \(p50) ms p95 \(p95) ms, outages \(stats.outages)")
        if unusable { return .unusable }
        return reported > 0 ? .found : .nothingFound
    }

    static func milliseconds(_ duration: Duration) -> Double {
        rounded(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    /// Two decimals are enough for a person and keep JSON short.
    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
