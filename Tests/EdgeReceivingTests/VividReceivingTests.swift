import EdgeAgent
import EdgeContract
import EdgeCore
import EdgeCrypto
import EdgeImaging
import EdgeReceiving
import EdgeStandin
import EdgeStation
import EdgeTestSupport
import EdgeVault
import Foundation
import Logging
import XCTest

/// The dock's "done when" on the kernel's vivid driver in the VM (.ci/vivid-vm): a PO code looped
/// through vivid is read by the agent's dock camera and becomes the kiosk's lookup; a still from
/// the same camera is the GRN's photo, uploaded once across a dropped connection, and the GRN is
/// applied once. XCTest (not Swift Testing) so the guest can select the class.
final class VividReceivingTests: XCTestCase {
    func testAPOLabelOnTheCameraBecomesAConfirmedGRNWithItsPhoto() async throws {
        guard let node = Vivid.capture else { throw XCTSkip("EDGE_TEST_CAMERA is not set (the vivid VM sets it)") }
        let test = try await TestStation(role: "dock", name: "vivid-dock",
                                         cameras: #"[{"name": "dock", "device": "\#(node)", "format": "YUYV", "width": 640, "height": 480}]"#,
                                         sections: #""receiving": {"tenant_id": "\#(DemoData.tenantID)"}, "ui": {"enabled": false}"#,
                                         token: "vivid-dock-token", prefix: "edge-vivid-dock")
        let standin = test.standin
        let configuration = try test.configuration()
        // The PO label as Code 128 from zint (the sample label is wider than vivid's 640x480 loop;
        // a PO on a QR code is not a valid PO label).
        let loop = try Vivid.startLoop(capture: node, frame: try Self.frameYUYV(try Self.code128Image(DemoData.openOrder)))
        defer { Vivid.stopLoop(loop) }
        let station = try test.start { $0.retry = BackoffPolicy(base: 0.5, cap: 0.5) }
        let agent = station.agent
        let feed = try XCTUnwrap(station.receiving?.feed)
        do {
            try await eventually("the kiosk shows the order read by the dock camera", timeout: .seconds(150)) {
                if case .order(.online(let order, _))? = feed.latest?.content { return order.poNumber == DemoData.openOrder }
                return false
            }
        } catch {
            let events = (try? agent.events.recent(limit: 20)) ?? []
            FileHandle.standardError.write(Data("VividReceivingTests: \(error); camera \(String(describing: agent.state.current.cameras["dock"])); parts \(agent.state.current.parts); events \(events.map { "\($0.className) \($0.valid) \($0.masked)" }); feed \(String(describing: feed.latest))\n".utf8))
            await test.stop()
            throw error
        }
        // The camera streams for the agent; the still is taken once it lets go of the device.
        try await test.stopAgent()

        let parts = try ReceivingParts.build(configuration: configuration, outbox: agent.outbox, paths: agent.paths, vault: agent.vault)
        defer { parts.close() }
        standin.faults.add(.drop, pathPrefix: APIPath.grnPhotos, times: 1)
        let still = try PhotoInput.camera(device: node).image()
        // The best size vivid offers within the cap (it scales the 640x480 loop up to it).
        XCTAssertGreaterThan(still.width * still.height, 640 * 480)
        XCTAssertLessThanOrEqual(still.width * still.height, StillCapture.maxPixels)
        let confirmation = try await parts.dock.confirm(GRNDraft(poNumber: DemoData.openOrder, lines: [try GRNDraft.parseLine("1=120")]), photos: [still])
        let result = try await GRNDelivery.deliver(confirmation, parts: parts, sync: configuration.sync, router: ChangeRouter(), kinds: StationSchema.outboxKinds, wait: 0)
        XCTAssertEqual(result.outcome, .applied)
        let photo = try XCTUnwrap(confirmation.photos.first)
        let uploader = PhotoUploader(store: parts.dock.photos, client: try XCTUnwrap(parts.dock.client))
        try await eventually("the photo acknowledged") {
            _ = await uploader.uploadDue(now: parts.dock.now + 3600)
            return try parts.dock.photos.photo(photo.sha256)?.uploadedAt != nil
        }
        let received = try XCTUnwrap(standin.backend.photoShelf.photo(photo.sha256))
        XCTAssertEqual(received.stored, 1)
        XCTAssertEqual(received.duplicates, 1, "the dropped upload was sent again and answered as a duplicate")
        let decoded = try ImageLoader.load(data: received.bytes, name: "vivid.jpg")
        XCTAssertEqual(decoded.width, still.width)
        XCTAssertEqual(decoded.height, still.height)
        XCTAssertEqual(Set(decoded.pixels).count > 2, true, "the still shows the label, not a blank frame")
        XCTAssertEqual(standin.backend.applications(ofKey: confirmation.idempotencyKey), 1)
        await test.stop()
    }

    /// A Code 128 label from zint, 2 pixels a module (334x116 for a PO number).
    static func code128Image(_ text: String) throws -> GrayImage {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vivid-dock-po-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Command.run(["zint", "-b", "20", "--height=50", "--scale=1", "-o", file.path, "-d", text])
        return try ImageLoader.load(path: file.path)
    }

    /// A grey image centred on a white 640x480 YUYV frame (video-range luma, neutral chroma).
    static func frameYUYV(_ image: GrayImage, width: Int = 640, height: Int = 480) throws -> Data {
        guard image.width <= width, image.height <= height else { throw Vivid.Failure(description: "the label does not fit the frame") }
        var luma = [UInt8](repeating: 255, count: width * height)
        let top = (height - image.height) / 2, left = (width - image.width) / 2
        for y in 0..<image.height { for x in 0..<image.width { luma[(top + y) * width + left + x] = image.pixels[y * image.rowStride + x] } }
        var frame = Data(capacity: width * height * 2)
        for value in luma {
            frame.append(UInt8(16 + Int(value) * 219 / 255))
            frame.append(128)
        }
        return frame
    }
}
