import ArgumentParser
import EdgeCapture
import EdgeCommandLine
import FoundationEssentials

/// `edge cameras`: the capture devices on this station (HW-1).
struct CamerasCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cameras",
        abstract: "List video capture devices: node, card, driver, bus, USB id, formats and sizes.",
        discussion: """
        With --json, prints JSON Lines, one object per device, valid against
        models/cameras.schema.json; a node that cannot be opened gives {"node": ..., "error": ...}.
        With --controls, lists each device's settable controls by the names the `cameras`
        section of edge.json uses.

        Exit status:
          0   at least one capture device was listed
          1   none was found
        """
    )

    @Flag(name: .customLong("json"), help: "Print JSON Lines, one object per device.")
    var json = false

    @Flag(name: .customLong("controls"), help: "Also list each device's controls (name, range, default).")
    var controls = false

    func run() throws {
        var listed = 0
        for entry in CameraDiscovery().list() {
            switch entry {
            case .success(let info):
                listed += 1
                let controlList = controls ? (try? listControls(info.node)) ?? [] : nil
                if json {
                    Output.stdout(Output.json(CameraListing(info, controls: controlList)))
                } else {
                    printReadable(info, controls: controlList)
                }
            case .failure(let error):
                let node = error.context["path"] ?? "?"
                if json {
                    Output.stdout(Output.json(["node": node, "error": error.message]))
                } else {
                    Output.stderr("edge: \(Output.printable(error.message))")
                }
            }
        }
        if listed == 0 {
            Output.stderr("edge: no video capture devices found")
            throw ExitCode(1)
        }
    }

    private func listControls(_ node: String) throws(CaptureError) -> [CameraControl] {
        let device = try VideoDevice(path: node)
        defer { device.close() }
        return try CameraControls(device: device).list()
    }

    private func printReadable(_ info: CameraInfo, controls: [CameraControl]?) {
        var line = "\(info.node): \"\(Output.printable(info.capabilities.card))\" driver \(Output.printable(info.capabilities.driver)) bus \(Output.printable(info.capabilities.busInfo))"
        if let usb = info.identity.usbID { line += " usb \(usb)" }
        if let serial = info.identity.serial { line += " serial \(Output.printable(serial))" }
        Output.stdout(line)
        for format in info.formats {
            var sizes = format.sizes.map(\.description).joined(separator: " ")
            if let low = format.minimumSize, let high = format.maximumSize { sizes = "\(low) to \(high)" }
            Output.stdout("  \(format.pixelFormat) (\(Output.printable(format.name))): \(sizes)")
        }
        for control in controls ?? [] {
            Output.stdout("  control \(control.name) \(control.minimum)..\(control.maximum) default \(control.defaultValue)")
        }
    }
}
