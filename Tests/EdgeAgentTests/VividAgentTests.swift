import EdgeAgent
import EdgeCapture
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeImaging
import EdgeStandin
import EdgeTestSupport
import EdgeVault
import Foundation
import FoundationNetworking
import Logging
import XCTest

/// The agent against the kernel's vivid driver in the VM (.ci/vivid-vm): a QR code and a
/// Code 128 label written to vivid's output come back on its capture node, become scan events,
/// are sent through the outbox and applied exactly once by the stand-in, and their frame-to-event
/// latency shows in /metrics. XCTest (not Swift Testing) so the guest can select the class.
final class VividAgentTests: XCTestCase {
    func testLoopedCodesBecomeEventsAppliedOnceWithTheirLatencyInMetrics() async throws {
        guard let node = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        let directory = try TemporaryDirectory(prefix: "edge-vivid-agent")
        let token = "vivid-agent-token"
        let standin = Standin(configuration: StandinConfiguration(staticTokens: [token], seedDemoData: true))
        let port = try await standin.start()
        FileHandle.standardError.write(Data("VividAgentTests: standin started\n".utf8))
        let vault = try Vault(directory: directory.path + "/vault", keyDirectory: directory.keysSibling, backend: .keyfile)
        try vault.put(SecureBytes(Array(token.utf8)), name: SecretName("sync.token"))
        let configuration = try StationConfiguration.parse(Data("""
            {"sync": {"base_url": "http://127.0.0.1:\(port)"},
             "station": {"name": "vivid", "state_dir": "\(directory.path)", "vault_backend": "keyfile", "metrics": "127.0.0.1:0",
                         "cameras": [{"name": "vivid", "device": "\(node)", "format": "YUYV", "width": 640, "height": 480}]}}
            """.utf8))
        var dependencies = AgentDependencies()
        dependencies.environment = [:]
        dependencies.retry = BackoffPolicy(base: 0.5, cap: 0.5)
        dependencies.logger = Logger(label: "edge-vivid") { _ in SwiftLogNoOpLogHandler() }
        // One frame holds both codes: the Code 128 material label above a QR purchase order.
        // (Restarting vivid's output loop while the agent streams can leave v4l2-ctl stuck.)
        let loop = try Vivid.startLoop(capture: node, frame: try Self.frameYUYV(
            [try ImageLoader.load(path: PackageFiles.path("samples/material.png")), try Self.qrImage("PO-2024-00042")]))
        FileHandle.standardError.write(Data("VividAgentTests: loop started\n".utf8))
        let agent = try buildAgent(configuration, dependencies: dependencies)
        let running = Task { try await agent.run() }
        FileHandle.standardError.write(Data("VividAgentTests: agent running\n".utf8))
        let clock = ContinuousClock()
        let lastReport = Locked(clock.now)
        func syncedTexts() -> Set<String> {
            // The guest is slow and has no debugger: say every 10 s where things stand.
            if lastReport.withLock({ last in defer { if clock.now - last > .seconds(10) { last = clock.now } }; return clock.now - last > .seconds(10) }) {
                let snapshot = agent.state.current
                FileHandle.standardError.write(Data("VividAgentTests: camera \(String(describing: snapshot.cameras["vivid"])), events \((try? agent.events.count()) ?? -1), applied \(standin.applied.count)\n".utf8))
            }
            return Set(standin.backend.pushes.filter { $0.kind == ScanEventRecorder.kind }.compactMap { $0.payload["text"]?.stringValue })
        }
        do {
            try await eventually("both looped codes applied as scan events", timeout: .seconds(150)) {
                syncedTexts().isSuperset(of: ["PO-2024-00042", "MAT-ST-4471"])
            }
            try await eventually("the outbox drained", timeout: .seconds(60)) { try agent.outbox.status().depth == 0 }
        } catch {
            FileHandle.standardError.write(Data("VividAgentTests: \(error); state \(agent.state.current)\n".utf8))
            await agent.shutdown()
            Vivid.stopLoop(loop)
            await standin.stop()
            throw error
        }
        // Exactly once: each event one key, each key applied once.
        let synced = try agent.events.recent(limit: 1000).filter { $0.action == "sync" }
        let applied = standin.applied.filter { $0.path == APIPath.syncPush }
        XCTAssertEqual(applied.count, synced.count)
        XCTAssertTrue(applied.allSatisfy { $0.applications == 1 })
        XCTAssertTrue(synced.allSatisfy { $0.latencyMs > 0 })
        // For the benchmark notes (emulated guest, not asserted): the latency the agent recorded.
        let latencies = synced.map(\.latencyMs).sorted()
        FileHandle.standardError.write(Data("VividAgentTests: \(latencies.count) events, frame-to-event p50 \(latencies[latencies.count / 2]) ms, max \(latencies.last ?? 0) ms (QEMU TCG, emulated)\n".utf8))
        let symbologies = Set(synced.map(\.symbology))
        XCTAssertEqual(symbologies, ["qr", "code128"])

        let address = try XCTUnwrap(agent.state.current.metricsAddress)
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)/metrics")!)
        let samples = try PythonCheck.prometheusSamples(body)
        XCTAssertGreaterThanOrEqual(samples[#"edge_frame_to_event_seconds_count{camera="vivid"}"#] ?? 0, 2)
        XCTAssertGreaterThan(samples[#"edge_frame_to_event_seconds_sum{camera="vivid"}"#] ?? 0, 0)
        await agent.shutdown()
        try await running.value
        Vivid.stopLoop(loop)
        await standin.stop()
    }

    /// A QR code from qrencode at 4 pixels a module.
    static func qrImage(_ text: String) throws -> GrayImage {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vivid-qr-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Command.run(["qrencode", "-s", "4", "-m", "4", "-o", file.path, text])
        return try ImageLoader.load(path: file.path)
    }

    /// Grey images stacked top to bottom, each centred, on a white 640x480 YUYV frame, as
    /// vivid's output takes it (video-range luma, neutral chroma).
    static func frameYUYV(_ images: [GrayImage], width: Int = 640, height: Int = 480) throws -> Data {
        var luma = [UInt8](repeating: 255, count: width * height)
        let total = images.reduce(0) { $0 + $1.height }
        guard total <= height, images.allSatisfy({ $0.width <= width }) else { throw Vivid.Failure(description: "the images do not fit the frame") }
        var top = (height - total) / 2
        for image in images {
            let left = (width - image.width) / 2
            for y in 0..<image.height {
                for x in 0..<image.width { luma[(top + y) * width + left + x] = image.pixels[y * image.rowStride + x] }
            }
            top += image.height
        }
        var bytes = [UInt8](repeating: 128, count: width * height * 2)
        for index in 0..<(width * height) { bytes[index * 2] = UInt8(16 + Int(luma[index]) * 219 / 255) }
        return Data(bytes)
    }
}
