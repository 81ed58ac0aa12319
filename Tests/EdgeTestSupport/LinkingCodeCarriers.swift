import Foundation

/// Every way SCN-6 lets a QR code (or a keyboard-wedge scanner, or a person) carry a linking code
/// (issue #28): the bare code, formatted with dashes, a URL's `code=` query item, a URL's last
/// path segment, and the JSON card. The payload, enrollment, CLI and kiosk tests run each path
/// over this one table (Tests/Browser/scenarios.py keeps the same list for the page).
public enum LinkingCodeCarriers {
    public struct Carrier: Sendable, CustomStringConvertible {
        /// "bare", "formatted", or the `carrier` detail `edge scan` reports (url-query, url-path, json).
        public let name: String
        public let text: String
        /// What `edge scan` reports as `carrier` for it.
        public let reported: String

        public var description: String { name }
    }

    /// The carriers of `code`, ten characters such as `DemoData.linkingCode` ("AB7KXM4PQR").
    public static func all(_ code: String) -> [Carrier] {
        let dashed = formatted(code)
        return [
            Carrier(name: "bare", text: code, reported: "bare"),
            Carrier(name: "formatted", text: dashed, reported: "bare"),
            Carrier(name: "url-query", text: "https://enroll.portal.example/link?code=\(dashed)&lang=en", reported: "url-query"),
            Carrier(name: "url-path", text: "https://enroll.portal.example/l/\(code)", reported: "url-path"),
            Carrier(name: "json", text: #"{"type":"LINK","code":"\#(code)"}"#, reported: "json"),
        ]
    }

    /// `AB-7KX-M4PQR` for `AB7KXM4PQR`.
    public static func formatted(_ code: String) -> String {
        let characters = Array(code)
        guard characters.count > 5 else { return code }
        return String(characters[0..<2]) + "-" + String(characters[2..<5]) + "-" + String(characters[5...])
    }

    /// A QR image of `text` made by Debian's `qrencode` (4 pixels a module, a 4-module margin), as
    /// a phone or a printed letter shows it; returns its path inside `directory`.
    public static func qrImage(_ text: String, named name: String, in directory: String) throws -> String {
        let path = directory + "/" + name + ".png"
        try Command.run(["qrencode", "-s", "4", "-m", "4", "-o", path, text])
        return path
    }
}
