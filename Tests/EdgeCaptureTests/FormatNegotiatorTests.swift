import EdgeCapture
import XCTest

final class FormatNegotiatorTests: XCTestCase {
    private let sizes = [FrameSize(width: 640, height: 480), FrameSize(width: 1280, height: 720), FrameSize(width: 1920, height: 1080)]

    func testPreferredNativeFormatAtTheWantedSize() throws {
        let offered = [OfferedFormat(pixelFormat: .mjpeg, name: "MJPEG", emulated: false, sizes: sizes),
                       OfferedFormat(pixelFormat: .nv12, name: "NV12", emulated: false, sizes: sizes),
                       OfferedFormat(pixelFormat: .yuyv, name: "YUYV", emulated: false, sizes: sizes)]
        let choice = try XCTUnwrap(FormatNegotiator.choose(offered: offered, configuration: CaptureConfiguration()))
        XCTAssertEqual(choice.0, .yuyv)
        XCTAssertEqual(choice.1, FrameSize(width: 1280, height: 720))
    }

    func testMJPEGOnlyCameraGetsYU12FromLibV4L2() throws {
        let offered = [OfferedFormat(pixelFormat: .mjpeg, name: "MJPEG", emulated: false, sizes: sizes),
                       OfferedFormat(pixelFormat: PixelFormat(fourcc: 0x3342_4752), name: "RGB3", emulated: true, sizes: sizes),
                       OfferedFormat(pixelFormat: .yuv420, name: "YU12", emulated: true, sizes: sizes)]
        XCTAssertEqual(FormatNegotiator.choose(offered: offered, configuration: CaptureConfiguration())?.0, .yuv420)
    }

    func testNothingWithLumaIsNil() {
        let offered = [OfferedFormat(pixelFormat: .mjpeg, name: "MJPEG", emulated: false, sizes: sizes)]
        XCTAssertNil(FormatNegotiator.choose(offered: offered, configuration: CaptureConfiguration()))
    }

    func testSizeFallbacks() {
        let small = OfferedFormat(pixelFormat: .grey, name: "GREY", emulated: false, sizes: [FrameSize(width: 320, height: 240), FrameSize(width: 640, height: 480)])
        XCTAssertEqual(FormatNegotiator.choose(offered: [small], configuration: CaptureConfiguration())?.1, FrameSize(width: 640, height: 480),
                       "smaller than wanted: the largest")
        let big = OfferedFormat(pixelFormat: .grey, name: "GREY", emulated: false, sizes: [FrameSize(width: 3840, height: 2160), FrameSize(width: 1920, height: 1080)])
        XCTAssertEqual(FormatNegotiator.choose(offered: [big], configuration: CaptureConfiguration())?.1, FrameSize(width: 1920, height: 1080),
                       "larger: the smallest that covers the wanted size")
        let range = OfferedFormat(pixelFormat: .grey, name: "GREY", emulated: false, sizes: [],
                                  minimumSize: FrameSize(width: 16, height: 16), maximumSize: FrameSize(width: 1024, height: 1024))
        XCTAssertEqual(FormatNegotiator.choose(offered: [range], configuration: CaptureConfiguration())?.1, FrameSize(width: 1024, height: 720))
    }

    func testPixelFormatNamesAndControlNames() throws {
        XCTAssertEqual(PixelFormat("YUYV"), .yuyv)
        XCTAssertEqual(PixelFormat.nv12.description, "NV12")
        XCTAssertNil(PixelFormat("YUY"))
        let rgbr = try XCTUnwrap(PixelFormat("RGBR"))
        XCTAssertEqual(PixelFormat(fourcc: rgbr.fourcc | 0x8000_0000).description, "RGBR-BE")
        XCTAssertEqual(CameraControl.normalise("Focus, Absolute"), "focus_absolute")
        XCTAssertEqual(CameraControl.normalise("White Balance Temperature, Auto"), "white_balance_temperature_auto")
    }
}
