import EdgeContract
import FoundationEssentials

/// What a SIGHUP (AGT-2) changes, found by comparing the running file with the new one key by key
/// (`section.key` for a section's keys, the section's name for a list), so that a key added to any
/// section, a capability's included, is covered without a list to keep in step: a difference is
/// applied live when `appliedLive` names its key path, and otherwise waits for a restart. The
/// agent compares the running file for what it applies and the file it started with for what
/// waits, so a change stays listed until the restart.
///
/// Decision: what is live is what the running parts read from the live configuration at each use:
/// the cameras (restarted one by one, an unchanged camera keeps streaming), their scan-event
/// policy and repeat gap, the payload classes and the sponsor table (classification, and the
/// clinic's code checks through `Enrollments.sponsors`), and the station's name (status, kiosk).
/// Everything else holds a connection, a file, a listening socket or settings a part copied when
/// it started (sync, push, the vault and paths, metrics, the pull interval, scanning, camera
/// models, the role, and the capabilities' sections: enrollment, receiving, ui), so it is listed in
/// `restartPending` and takes effect at the next start.
public struct ReloadPlan: Sendable, Equatable {
    /// Key paths whose change the running station applies.
    public static let appliedLive: Set<String> = [
        "station.cameras", "station.scan_events", "station.repeat_gap", "station.name", "sponsors", "classes",
    ]

    /// Changed key paths applied now, sorted.
    public let live: [String]
    /// Changed key paths that wait for a restart, sorted.
    public let restart: [String]

    /// `old` and `new` are the files' bytes (already checked by the loader: an object, at most
    /// `StationConfiguration.maxBytes`); nil is the empty configuration.
    public init(old: Data?, new: Data?) {
        let changed = Self.differences(Self.object(old), Self.object(new))
        live = changed.filter { Self.appliedLive.contains($0) }
        restart = changed.filter { !Self.appliedLive.contains($0) }
    }

    private static func object(_ data: Data?) -> [String: JSONValue] {
        guard let data, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: data) else { return [:] }
        return object
    }

    /// Top-level keys whose values differ; inside an object on both sides, its keys that differ.
    private static func differences(_ old: [String: JSONValue], _ new: [String: JSONValue]) -> [String] {
        var changed: [String] = []
        for key in Set(old.keys).union(new.keys).sorted() {
            if case .object(let a)? = old[key], case .object(let b)? = new[key] {
                for inner in Set(a.keys).union(b.keys).sorted() where a[inner] != b[inner] {
                    changed.append(key + "." + inner)
                }
            } else if old[key] != new[key] {
                changed.append(key)
            }
        }
        return changed
    }
}
