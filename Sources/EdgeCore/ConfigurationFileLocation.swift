import Glibc

/// Where a station's edge.json is: an explicit path, then $EDGE_CONFIG, then /etc/edge/edge.json
/// when it exists. One rule for the agent's loader and for the `edge` front, which decodes in its
/// own process only when this finds no file (a file is checked whole by edge-agent, as `edge run`
/// checks it).
public enum ConfigurationFileLocation {
    public static let systemPath = "/etc/edge/edge.json"

    /// The file to read, or nil for none. An empty $EDGE_CONFIG counts as unset.
    public static func resolve(explicitPath: String?, environment: [String: String]) -> String? {
        let env = environment["EDGE_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        return explicitPath ?? env ?? (access(systemPath, F_OK) == 0 ? systemPath : nil)
    }

    /// The one variable `resolve` reads, without copying the whole environment (a process that
    /// starts once per scanned file should not pay for ProcessInfo's copy).
    public static var environment: [String: String] {
        getenv("EDGE_CONFIG").map { ["EDGE_CONFIG": String(cString: $0)] } ?? [:]
    }
}
