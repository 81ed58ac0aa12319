import EdgeContract
import EdgeHTTP
import FoundationEssentials
import Glibc

/// Who is calling: the values of the SYN-6 headers that do not change per request.
public struct SyncIdentity: Sendable, Hashable {
    /// UUID v4 kept in the vault (ENR-15).
    public var deviceID: String
    public var appVersion: String
    public var osVersion: String
    /// IANA zone name, e.g. "Europe/Berlin".
    public var timezone: String

    public init(deviceID: String, appVersion: String, osVersion: String, timezone: String) {
        self.deviceID = deviceID
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.timezone = timezone
    }

    /// The headers every request carries, less Authorization and Idempotency-Key.
    public var headers: [HTTPHeader] {
        [HTTPHeader(SyncHeaderName.deviceID, deviceID),
         HTTPHeader(SyncHeaderName.appVersion, appVersion),
         HTTPHeader(SyncHeaderName.platform, SyncHeaderName.platformValue),
         HTTPHeader(SyncHeaderName.osVersion, osVersion),
         HTTPHeader(SyncHeaderName.timezone, timezone),
         HTTPHeader(SyncHeaderName.contentType, SyncHeaderName.jsonContentType)]
    }

    /// This machine's identity: `PRETTY_NAME` from os-release (else the kernel release) and the
    /// IANA zone from $TZ, /etc/timezone or the /etc/localtime link.
    public static func current(deviceID: String, appVersion: String) -> SyncIdentity {
        SyncIdentity(deviceID: deviceID, appVersion: appVersion, osVersion: osVersion(), timezone: ianaTimezone())
    }

    public static func osVersion() -> String {
        if let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
                let value = String(line.dropFirst("PRETTY_NAME=".count).filter { $0 != "\"" && $0 != "'" })
                if !value.isEmpty { return headerSafe(value) }
            }
        }
        var names = utsname()
        guard uname(&names) == 0 else { return "Linux" }
        let release = withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return headerSafe("Linux " + release)
    }

    /// Decision: a zone the station cannot name is sent as "UTC", which the backend can always
    /// parse; timestamps carry their own offset anyway (SYN-10).
    public static func ianaTimezone() -> String {
        if let tz = ProcessInfo.processInfo.environment["TZ"], let zone = zoneName(tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) {
            return zone
        }
        if let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8),
           let zone = zoneName(String(text.filter { !$0.isWhitespace })) {
            return zone
        }
        var buffer = [CChar](repeating: 0, count: 512)
        let length = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if length > 0 {
            let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.range(of: "zoneinfo/"), let zone = zoneName(String(target[range.upperBound...])) {
                return zone
            }
        }
        return "UTC"
    }

    /// An IANA-looking name ("Area/City", "UTC"), or nil.
    private static func zoneName(_ text: String) -> String? {
        let trimmed = text.hasPrefix("/usr/share/zoneinfo/") ? String(text.dropFirst("/usr/share/zoneinfo/".count)) : text
        guard !trimmed.isEmpty, trimmed.count <= 64,
              trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/_+-".contains($0)) }) else { return nil }
        return trimmed
    }

    /// Header values must be one line of printable ASCII.
    private static func headerSafe(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f }.map(Character.init).prefix(100))
    }
}
