import Foundation

/// The kernel's vivid test driver, as the VM harness (.ci/vivid-vm) sets it up: a capture node
/// (EDGE_TEST_CAMERA) and its output node (EDGE_TEST_CAMERA_OUTPUT), driven with v4l2-ctl and
/// sysfs. Tests that need it skip themselves when EDGE_TEST_CAMERA is unset.
public enum Vivid {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The capture node, or nil when no real device is available (plain `swift test`).
    public static var capture: String? {
        ProcessInfo.processInfo.environment["EDGE_TEST_CAMERA"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A second, independent capture node (another vivid instance), when the VM made one.
    public static var secondCapture: String? {
        ProcessInfo.processInfo.environment["EDGE_TEST_CAMERA_2"].flatMap { $0.isEmpty ? nil : $0 }
    }

    public static var output: String {
        ProcessInfo.processInfo.environment["EDGE_TEST_CAMERA_OUTPUT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/dev/video1"
    }

    static let driverDirectory = "/sys/bus/platform/drivers/vivid"

    /// Runs v4l2-ctl; throws with its stderr when it fails.
    @discardableResult
    public static func v4l2ctl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/v4l2-ctl")
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "v4l2-ctl \(arguments.joined(separator: " ")): \(String(decoding: errData, as: UTF8.self))")
        }
        return String(decoding: outData, as: UTF8.self)
    }

    /// The webcam input (index 0): discrete sizes and the 75% colour-bar test pattern, without
    /// the text overlay (at 320x180 it covers most of the bars).
    public static func useWebcamInput(_ capture: String) throws {
        try v4l2ctl(["-d", capture, "-i", "0"])
        try v4l2ctl(["-d", capture, "--set-ctrl", "loop_video=0,osd_text_mode=2"])
    }

    /// Loops `frame` (640x480 YUYV) from the output node back into the capture node (HDMI in and
    /// out at 640x480, loop_video): recipe in shared/spec/hardware.md. Returns the v4l2-ctl
    /// process streaming it; `stopLoop` ends it.
    public static func startLoop(capture: String, frame: Data) throws -> Process {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("vivid-\(UUID().uuidString).yuyv")
        try frame.write(to: file)
        try v4l2ctl(["-d", capture, "-i", "3"])
        try v4l2ctl(["-d", capture, "--set-dv-bt-timings", "index=0"])
        try v4l2ctl(["-d", capture, "-v", "width=640,height=480,pixelformat=YUYV"])
        try v4l2ctl(["-d", capture, "--set-ctrl", "loop_video=1,osd_text_mode=2"])
        try v4l2ctl(["-d", output, "-o", "1"])
        try v4l2ctl(["-d", output, "--set-dv-bt-timings", "index=0"])
        try v4l2ctl(["-d", output, "-x", "width=640,height=480,pixelformat=YUYV"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/v4l2-ctl")
        process.arguments = ["-d", output, "--stream-out-mmap=3", "--stream-from=\(file.path)", "--stream-loop"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The output must be streaming before captured frames carry it.
        Thread.sleep(forTimeInterval: 0.5)
        return process
    }

    /// SIGTERM, then SIGKILL after 5 s: v4l2-ctl can stay blocked in the driver while the
    /// capture side still streams.
    public static func stopLoop(_ process: Process) {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// The platform device of the first vivid instance ("vivid.0", which owns EDGE_TEST_CAMERA),
    /// for unbind/bind; nil while it is unbound.
    public static func platformDevice() -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: driverDirectory)) ?? []
        return names.contains("vivid.0") ? "vivid.0" : nil
    }

    /// Detaches (unbind) or re-attaches (bind) the device from its driver: the video nodes
    /// vanish and return, like a USB camera unplugged and plugged back in.
    public static func setBound(_ bound: Bool, device: String) throws {
        try Data(device.utf8).write(to: URL(fileURLWithPath: "\(driverDirectory)/\(bound ? "bind" : "unbind")"))
    }

    /// A 640x480 YUYV frame with `text` as a QR code in the middle, 8 pixels per module, from
    /// qrencode's ASCII rendering (each module is two characters, "##" dark).
    public static func qrFrameYUYV(_ text: String, width: Int = 640, height: Int = 480, scale: Int = 8) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/qrencode")
        process.arguments = ["-t", "ASCII", "-m", "4", "-l", "M", text]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let ascii = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let rows = ascii.split(separator: "\n").map { row in stride(from: 0, to: row.count, by: 2).map { Array(row)[$0] == "#" } }
        guard let side = rows.first?.count, side * scale <= min(width, height) else { throw Failure(description: "QR does not fit") }
        var bytes = [UInt8](repeating: 0, count: width * height * 2)
        let left = (width - side * scale) / 2, top = (height - side * scale) / 2
        for y in 0..<height {
            for x in 0..<width {
                let mx = (x - left) / scale, my = (y - top) / scale
                let dark = x >= left && y >= top && my < rows.count && mx < rows[my].count && rows[my][mx]
                bytes[(y * width + x) * 2] = dark ? 16 : 235
                bytes[(y * width + x) * 2 + 1] = 128
            }
        }
        return Data(bytes)
    }
}
