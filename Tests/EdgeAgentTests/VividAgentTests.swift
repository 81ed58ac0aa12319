import EdgeAgent
import EdgeCapture
import EdgeContract
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
        let vault = try Vault(directory: directory.path + "/vault", backend: .keyfile)
        try vault.put(SecureBytes(Array(token.utf8)), name: SecretName("sync.token"))
        let configuration = try StationConfiguration.parse(Data("""
            {"sync": {"base_url": "http://127.0.0.1:\(port)"},
             "station": {"name": "vivid", "state_dir": "\(directory.path)", "vault_backend": "keyfile", "metrics": "127.0.0.1:0",
                         "cameras": [{"name": "vivid", "device": "\(node)"}]}}
            """.utf8))
        var dependencies = AgentDependencies()
        dependencies.environment = [:]
        dependencies.retryInterval = .milliseconds(500)
        dependencies.logger = Logger(label: "edge-vivid") { _ in SwiftLogNoOpLogHandler() }
        // vivid's looped HDMI input is 640x480 YUYV, and vivid has no USB id to key settings by.
        var capture = CaptureConfiguration()
        capture.preferredFormats = [PixelFormat("YUYV")].compactMap { $0 }
        capture.size = FrameSize(width: 640, height: 480)
        dependencies.makeFrameSource = { [capture] camera, models in V4L2FrameSource(device: camera.device, models: models, override: capture) }

        var loop = try Vivid.startLoop(capture: node, frame: Vivid.qrFrameYUYV("PO-2024-00042"))
        let agent = try buildAgent(configuration, dependencies: dependencies)
        let running = Task { try await agent.run() }
        func syncedTexts() -> Set<String> {
            Set(standin.backend.pushes.filter { $0.kind == ScanEventRecorder.kind }.compactMap { $0.payload["text"]?.stringValue })
        }
        do {
            try await eventually("the looped QR applied as a scan event", timeout: .seconds(120)) { syncedTexts().contains("PO-2024-00042") }
            Vivid.stopLoop(loop)
            loop = try Vivid.startLoop(capture: node, frame: try Self.frameYUYV(PackageFiles.path("samples/material.png")))
            try await eventually("the looped Code 128 applied as a scan event", timeout: .seconds(120)) { syncedTexts().contains("MAT-ST-4471") }
            Vivid.stopLoop(loop)
            try await eventually("the outbox drained", timeout: .seconds(60)) { try agent.outbox.status().depth == 0 }
        } catch {
            Vivid.stopLoop(loop)
            await agent.shutdown()
            await standin.stop()
            throw error
        }
        // Exactly once: each event one key, each key applied once.
        let synced = try agent.events.recent(limit: 1000).filter { $0.action == "sync" }
        let applied = standin.applied.filter { $0.path == APIPath.syncPush }
        XCTAssertEqual(applied.count, synced.count)
        XCTAssertTrue(applied.allSatisfy { $0.applications == 1 })
        XCTAssertTrue(synced.allSatisfy { $0.latencyMs > 0 })
        let symbologies = Set(synced.map(\.symbology))
        XCTAssertEqual(symbologies, ["qr", "code128"])

        let address = try XCTUnwrap(agent.state.current.metricsAddress)
        let (body, _) = try await URLSession.shared.data(from: URL(string: "http://\(address)/metrics")!)
        let samples = try PythonCheck.prometheusSamples(body)
        XCTAssertGreaterThanOrEqual(samples[#"edge_frame_to_event_seconds_count{camera="vivid"}"#] ?? 0, 2)
        XCTAssertGreaterThan(samples[#"edge_frame_to_event_seconds_sum{camera="vivid"}"#] ?? 0, 0)
        await agent.shutdown()
        try await running.value
        await standin.stop()
    }

    /// A grey image centred on a 640x480 YUYV frame (white around it), as vivid's output takes it.
    static func frameYUYV(_ path: String, width: Int = 640, height: Int = 480) throws -> Data {
        let image = try ImageLoader.load(path: path)
        guard image.width <= width, image.height <= height else { throw Vivid.Failure(description: "\(path) is larger than the frame") }
        var bytes = [UInt8](repeating: 128, count: width * height * 2)
        let left = (width - image.width) / 2, top = (height - image.height) / 2
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= left && y >= top && x < left + image.width && y < top + image.height
                let gray = inside ? image.pixels[(y - top) * image.rowStride + (x - left)] : 255
                // Video range luma, as a camera sends it.
                bytes[(y * width + x) * 2] = UInt8(16 + Int(gray) * 219 / 255)
            }
        }
        return Data(bytes)
    }
}
