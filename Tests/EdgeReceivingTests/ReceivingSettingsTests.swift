import EdgeAgent
import EdgeCapture
@testable import EdgeReceiving
import Foundation
import Testing

/// The `receiving` section as `edge run` checks it before anything starts, and the small pure
/// choices the dock makes (still size, unit precision, ages).
@Suite struct ReceivingSettingsTests {
    /// The section as the receiving capability reads it when the station is built.
    static func settings(_ section: String) throws -> ReceivingSettings? {
        try StationConfiguration.parse(Data(#"{"receiving": \#(section)}"#.utf8), sections: [ReceivingSettings.configurationSection])
            .section("receiving", as: ReceivingSettings.self)
    }

    @Test func aGoodSectionIsReadWithItsDefaults() throws {
        let settings = try #require(try Self.settings(#"{"tenant_id": "9A8B7C6D-5E4F-4A3B-8C2D-1E0F9A8B7C6D"}"#))
        #expect(settings.tenantID == "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d")
        #expect(settings.photoRetention == 86400 && settings.confirmWait == 15 && settings.photoDirectory == nil)
        #expect(try StationConfiguration().section("receiving", as: ReceivingSettings.self) == nil)
    }

    @Test func aBadSectionIsRefusedNamingTheKey() throws {
        for (section, key) in [(#"{"tenant_id": "acme"}"#, "receiving.tenant_id"),
                               (#"{"tenant_id": "00000000-0000-0000-0000-000000000000"}"#, "receiving.tenant_id"),
                               (#"{}"#, "tenant_id"),
                               (#"{"tenant_id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "photo_retention": -1}"#, "receiving.photo_retention"),
                               (#"{"tenant_id": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "confirm_wait": 1000}"#, "receiving.confirm_wait")] {
            let error = #expect(throws: StationConfigurationError.self) { try Self.settings(section) }
            #expect(error?.message.contains(key) == true, "\(section): \(error?.message ?? "")")
        }
    }

    @Test func theStillIsTheLargestOfferedSizeWithinTheCap() {
        let offered = [
            OfferedFormat(pixelFormat: .yuyv, name: "YUYV", emulated: false,
                          sizes: [FrameSize(width: 640, height: 480), FrameSize(width: 1920, height: 1080), FrameSize(width: 4000, height: 3000)]),
            OfferedFormat(pixelFormat: .mjpeg, name: "MJPG", emulated: false, sizes: [FrameSize(width: 3264, height: 2448)]),
        ]
        #expect(StillCapture.bestSize(offered) == FrameSize(width: 1920, height: 1080), "12 MP is over the cap; MJPEG has no luma")
        let stepwise = [OfferedFormat(pixelFormat: .grey, name: "GREY", emulated: false, sizes: [],
                                      minimumSize: FrameSize(width: 16, height: 16), maximumSize: FrameSize(width: 8192, height: 8192))]
        #expect(StillCapture.bestSize(stepwise).pixels <= StillCapture.maxPixels)
        #expect(StillCapture.bestSize([]) == FrameSize(width: 1280, height: 720))
    }

    @Test func unitsAndAges() {
        #expect(UnitPrecision.decimals("ea") == 0 && UnitPrecision.decimals("kg") == 3)
        #expect(UnitPrecision.fits(250.5, unit: "m") && !UnitPrecision.fits(1.5, unit: "ROLL"))
        #expect(OrderDocument.age(42) == "42 s" && OrderDocument.age(600) == "10 min" && OrderDocument.age(7200) == "2 h" && OrderDocument.age(3 * 86400) == "3 d")
    }
}
