import EdgeAgent
import EdgeCore
import EdgeCrypto
import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import EdgeVault
import Foundation
import FoundationNetworking
import XCTest

/// Issue #28 item 4: every part that cannot start (the vault and its TPM, a capability's set-up,
/// the kiosk's PIN, a camera) is reported with its attempts and retried with backoff while the
/// rest runs, and recovers without a restart.
final class StationStartupRetryTests: XCTestCase {
    /// A TPM that is not ready at boot: the station starts without its vault, says so and keeps
    /// trying; what needs no secret runs (the dock works from its cache, the kiosk answers, a
    /// scan is queued); when the TPM answers, the vault opens and the sender, the puller,
    /// enrollment and the dock's backend client follow without a restart, and the queued entry is
    /// sent once.
    func testATPMNotReadyAtStartIsRetriedAndThePartsThatNeedTheVaultFollowIt() async throws {
        let tpm = try Swtpm()
        let test = try await TestStation(role: "both", sections: #"""
            "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "{base}"}],
            "receiving": {"tenant_id": "\#(DemoData.tenantID)"}, "ui": {"listen": "127.0.0.1:0"}
            """#, vaultBackend: .tpm2, tcti: tpm.tcti, prefix: "edge-retry")
        try await withStopping(test) { test in
            tpm.stop()
            let agent = try test.start().agent
            let state = agent.state
            try await eventually("the vault is retried (\(state.current.parts["vault"].map { "\($0)" } ?? "no part"))") {
                let vault = state.current.parts["vault"]
                return vault?.state == .waiting && (vault?.attempts ?? 0) >= 2 && vault?.retryAt != nil
            }
            try await eventually("the parts that need the vault wait for it") {
                let parts = state.current.parts
                return parts["sender"]?.state == .waiting && parts["sender"]?.reason?.contains("vault") == true
                    && parts["puller"]?.state == .waiting && parts["enrollment"]?.state == .waiting
            }
            // What needs no secret runs meanwhile.
            let parts = state.current.parts
            XCTAssertEqual(parts["receiving"]?.state, .running)
            XCTAssertTrue(parts["receiving"]?.reason?.hasPrefix("offline: ") ?? false, "\(parts["receiving"].map { "\($0)" } ?? "")")
            XCTAssertNil(agent.vault)
            let status = agent.context.status()
            XCTAssertTrue(status.missing.contains { $0.hasPrefix("vault: ") && $0.contains("tried ") }, "\(status.missing)")
            XCTAssertNotNil(status.vault.error)
            try PythonCheck.validate(json: Data(try status.json()), schema: PackageFiles.path("models/station-status.schema.json"))
            let ui = try XCTUnwrap(state.current.uiAddress)
            let (_, response) = try await URLSession.shared.data(from: XCTUnwrap(URL(string: ui + "/status")))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
            try await agent.outbox.database.dbWriter.write { db in
                try agent.outbox.enqueue(db, stream: "scan:dock", kind: ScanEventRecorder.kind, payload: Array(#"{"text":"queued while locked"}"#.utf8))
            }

            try tpm.start()
            try await eventually("the vault opens (\(state.current.parts["vault"].map { "\($0)" } ?? "no part"))") {
                state.current.parts["vault"]?.state == .running
            }
            try await eventually("sender, puller, enrollment and the dock follow (\(state.current.parts))") {
                let parts = state.current.parts
                return parts["sender"]?.state == .running && parts["puller"]?.state == .running && parts["enrollment"]?.state == .running
                    && parts["receiving"]?.state == .running && parts["receiving"]?.reason == nil
            }
            try await eventually("the entry queued while the vault was locked is sent") { try agent.outbox.status().depth == 0 }
            XCTAssertEqual(test.standin.applied.count, 1)
            XCTAssertEqual(agent.vault?.backend, "tpm2")
            XCTAssertNil(agent.context.status().vault.error)
            XCTAssertNil(state.current.parts["vault"]?.attempts)
        }
    }

    /// A kiosk that must ask for a PIN and finds none in the vault does not start, says why and
    /// what to do, and starts by itself once the operator has put the PIN (`edge vault put`,
    /// another process on the same vault); the cameras run all along.
    func testAKioskWaitingForItsPINStartsOnceThePINIsInTheVault() async throws {
        let image = PackageFiles.path("samples/po-code128.png")
        let test = try await TestStation(role: "dock", cameras: #"[{"name": "dock", "device": "replay:\#(image)", "fps": 5}]"#,
                                         sections: #""ui": {"listen": "127.0.0.1:0", "require_pin": true}"#, prefix: "edge-retry")
        try await withStopping(test) { test in
            let agent = try test.start().agent
            let state = agent.state
            try await eventually("the kiosk waits for its PIN and is retried") {
                let ui = state.current.parts["ui"]
                return ui?.state == .waiting && ui?.reason?.contains("edge vault put ui.pin") == true && (ui?.attempts ?? 0) >= 2
            }
            try await eventually("the camera runs meanwhile") { state.current.cameras["dock"]?.up == true }
            XCTAssertNil(state.current.uiAddress)

            let operatorsVault = try Vault(directory: test.directory.path + "/vault",
                                           keyDirectory: StationPaths.defaultKeyDirectory(forState: test.directory.path), backend: .keyfile)
            try operatorsVault.put(SecureBytes(Array("2468".utf8)), name: SecretName("ui.pin"))
            try await eventually("the kiosk starts (\(state.current.parts["ui"].map { "\($0)" } ?? "no part"))") {
                state.current.parts["ui"]?.state == .running && state.current.uiAddress != nil
            }
            let ui = try XCTUnwrap(state.current.uiAddress)
            let (_, response) = try await URLSession.shared.data(from: XCTUnwrap(URL(string: ui + "/login")))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        }
    }

    /// A camera whose source gives up (here a replay file that is not there yet; on a station a
    /// device that is not a usable camera) is made again with backoff, status saying when, and
    /// streams once it can.
    func testACameraThatCannotStartIsTriedAgainWithBackoff() async throws {
        let directory = try TemporaryDirectory(prefix: "edge-retry-camera")
        let image = directory.path + "/late.png"
        let test = try await TestStation(role: "dock", cameras: #"[{"name": "dock", "device": "replay:\#(image)", "fps": 5}]"#,
                                         sync: false, prefix: "edge-retry")
        try await withStopping(test) { test in
            let agent = try test.start().agent
            let state = agent.state
            try await eventually("the camera is retried (\(state.current.cameras["dock"]?.detail ?? "-"))") {
                let camera = state.current.cameras["dock"]
                return camera?.up == false && camera?.detail?.contains("; try 3 in ") == true
            }
            try FileManager.default.copyItem(atPath: PackageFiles.path("samples/po-code128.png"), toPath: image)
            try await eventually("the camera streams and reads") {
                let camera = state.current.cameras["dock"]
                return camera?.up == true && (camera?.events ?? 0) >= 1
            }
        }
    }
}
