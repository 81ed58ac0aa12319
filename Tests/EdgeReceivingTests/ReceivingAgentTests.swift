import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeHTTP
import EdgePush
@testable import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeStore
import EdgeTestSupport
import EdgeVault
import Foundation
import Logging
import Testing

/// The dock inside the whole station (`buildAgent` with `ReceivingCapability`, as `edge run`
/// composes it): camera reads become the kiosk's next lookup, and a confirmed GRN raises one
/// DELIVERY_UPDATE through the push relay to the FCM stand-in once the backend applied it (RCV-7),
/// even when the GRN had to be sent twice.
@Suite(.serialized) struct ReceivingAgentTests {
    static let token = "receiving-agent-test-token"

    @Test func cameraReadsFeedTheKioskAndAConfirmedGRNNotifiesTheTeamOnce() async throws {
        let samples = ["po-code128.png", "vendor.png"].map { PackageFiles.path("samples/" + $0) }.joined(separator: ",")
        // Stopped also when the test fails half-way: a station left running when the process
        // exits can crash it.
        try await withStopping(TestStation(role: "dock", name: "dock-1", cameras: #"[{"name": "dock", "device": "replay:\#(samples)", "fps": 10}]"#,
                                           station: #""repeat_gap": 60"#,
                                           sections: #"""
                                               "push": {"endpoint": "{base}", "station_zone": "UTC", "receiving_team": ["dock-lead"]},
                                               "receiving": {"tenant_id": "\#(DemoData.tenantID)"}, "ui": {"enabled": false}
                                               """#,
                                           token: Self.token, fcm: true, prefix: "edge-receiving-agent")) { test in
            let standin = test.standin
            let configuration = try test.configuration()
            let station = try test.station()
            let agent = station.agent
            let feed = try #require(station.receiving?.feed)

            let seen = Locked<[KioskLookup]>([])
            let updates = feed.updates()
            let watching = Task { for await lookup in updates { seen.withLock { $0.append(lookup) } } }
            defer { watching.cancel() }
            test.run(agent)
            do {
                let push = try PushStore(database: agent.outbox.database, stationZone: "UTC")
                let now = Int64(Date().timeIntervalSince1970)
                _ = try push.registerDevice(userID: "dock-lead", token: "fcm-dock-lead", platform: .android, now: now)
                // The relay runs on the wall clock: without this override the DELIVERY_UPDATE is held
                // (PSH-4) whenever the suite runs between 22:00 and 07:00 UTC, as CI once did.
                try push.savePreferences(try PushPreferences(userID: "dock-lead", overrideTypes: [.approvalPending, .deliveryUpdate]), now: now)

                // The PO label and the vendor card on the dock camera, looked up for the kiosk.
                try await eventually("the kiosk got the order and the vendor card") {
                    let lookups = seen.withLock { $0 }
                    let order = lookups.contains { if case .order(.online(let order, _)) = $0.content { order.poNumber == DemoData.openOrder } else { false } }
                    let vendor = lookups.contains { if case .vendor(let vendor) = $0.content { vendor.vendorID == DemoData.vendorID } else { false } }
                    return order && vendor
                }
                #expect(seen.withLock { $0 }.allSatisfy { $0.camera == "dock" })
                // The dock's lookups go out on the transport the sender and puller share (issue #30
                // item 5: one connection cache to the backend, not one per part).
                let backend = try #require(agent.context.backend)
                let dockTransport = try #require(station.receiving?.parts?.transport)
                #expect(dockTransport === (try backend.transport()))

                // A GRN confirmed at the dock while the agent runs: its sender sends it; the first answer is lost.
                standin.faults.add(.drop, pathPrefix: APIPath.grnConfirm, times: 1)
                let parts = try ReceivingParts.build(configuration: configuration, outbox: agent.outbox, paths: agent.paths, vault: agent.vault)
                defer { parts.close() }
                let confirmation = try await parts.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: [GRNLine(lineNo: 1, received: 120)]))
                try await eventually("the GRN applied") { try parts.dock.outcome(confirmation.idempotencyKey) == .applied }
                #expect(standin.backend.applications(ofKey: confirmation.idempotencyKey) == 1)
                #expect(standin.requests.filter { $0.path == APIPath.grnConfirm }.count == 2, "sent twice, applied once")

                func deliveryUpdates() -> [FCMReceivedMessage] {
                    standin.backend.fcm.received.filter {
                        $0.status == 200 && $0.message?["token"]?.stringValue == "fcm-dock-lead" && $0.message?["data"]?["type"]?.stringValue == "DELIVERY_UPDATE"
                    }
                }
                try await eventually("DELIVERY_UPDATE reached the FCM stand-in") { !deliveryUpdates().isEmpty }
                try await eventually("the relay has nothing left to send") {
                    try PushStore(database: agent.outbox.database, stationZone: "UTC").overview().counts[.queued] == 0
                }
                #expect(deliveryUpdates().count == 1)
                #expect(deliveryUpdates().first?.message?["data"]?["deep_link"]?.stringValue == "/purchase-orders/\(DemoData.openOrder)")

                // The applied GRN's PO_UPDATED change comes back in a pull and refreshes the cache.
                agent.wakePuller()
                try await eventually("the cache shows the received line") {
                    try parts.dock.cache.cached(DemoData.openOrder)?.order.lines[0].received == 120
                }

            }
            try await test.stopAgent()
            // The agent closed the shared transport once every part had stopped.
            #expect(throws: TransportError.self) { try agent.context.backend?.transport() }
        }
    }
}
