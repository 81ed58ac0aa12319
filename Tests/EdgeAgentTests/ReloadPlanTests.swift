import EdgeAgent
import Foundation
import Testing

/// AGT-2 (issue #28 item 5): every section and key of edge.json, changed by a reload, is either
/// applied live or listed as needing a restart: one case per section of the file.
@Suite struct ReloadPlanTests {
    static let base = #"""
        {"station": {"name": "dock-1", "role": "both", "state_dir": "/var/lib/edge", "pull_interval": 30, "repeat_gap": 1.5,
                     "scan_events": {"default": "keep"}, "metrics": "127.0.0.1:9464",
                     "cameras": [{"name": "dock", "device": "/dev/video0", "fps": 30}]},
         "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "https://ab.example"}],
         "classes": [{"name": "pallet", "pattern": "^PAL-"}],
         "cameras": [{"name": "c920", "formats": ["YUYV"]}],
         "sync": {"base_url": "https://backend.example", "connect_timeout": 5},
         "push": {"project_id": "p"},
         "scanning": {"symbologies": ["qr"]},
         "enrollment": {"status_poll_interval": 60},
         "receiving": {"tenant_id": "t"},
         "ui": {"listen": "127.0.0.1:8080"}}
        """#

    /// (what the new file changes, the key path, whether it applies live)
    static let cases: [(String, String, Bool)] = [
        (#""name": "dock-1""#, "station.name", true),
        (#""fps": 30"#, "station.cameras", true),
        (#""repeat_gap": 1.5"#, "station.repeat_gap", true),
        (#""default": "keep""#, "station.scan_events", true),
        (#""prefix": "AB""#, "sponsors", true),
        (#""pattern": "^PAL-""#, "classes", true),
        (#""role": "both""#, "station.role", false),
        (#""state_dir": "/var/lib/edge""#, "station.state_dir", false),
        (#""pull_interval": 30"#, "station.pull_interval", false),
        (#""metrics": "127.0.0.1:9464""#, "station.metrics", false),
        (#""formats": ["YUYV"]"#, "cameras", false),
        (#""connect_timeout": 5"#, "sync.connect_timeout", false),
        (#""project_id": "p""#, "push.project_id", false),
        (#""symbologies": ["qr"]"#, "scanning.symbologies", false),
        (#""status_poll_interval": 60"#, "enrollment.status_poll_interval", false),
        (#""tenant_id": "t""#, "receiving.tenant_id", false),
        (#""listen": "127.0.0.1:8080""#, "ui.listen", false),
    ]

    @Test(arguments: 0..<cases.count)
    func eachSectionIsAppliedOrListedForARestart(_ index: Int) throws {
        let (fragment, path, live) = Self.cases[index]
        #expect(Self.base.contains(fragment))
        let changed = Self.base.replacingOccurrences(of: fragment, with: Self.altered(fragment))
        let plan = ReloadPlan(old: Data(Self.base.utf8), new: Data(changed.utf8))
        #expect(plan.live == (live ? [path] : []), "\(path)")
        #expect(plan.restart == (live ? [] : [path]), "\(path)")
    }

    @Test func aSectionAddedOrRemovedIsListedAndTheSameFileChangesNothing() throws {
        let same = ReloadPlan(old: Data(Self.base.utf8), new: Data(Self.base.utf8))
        #expect(same.live.isEmpty && same.restart.isEmpty)
        var file = try #require(try JSONSerialization.jsonObject(with: Data(Self.base.utf8)) as? [String: Any])
        file["ui"] = nil
        let without = try JSONSerialization.data(withJSONObject: file)
        #expect(ReloadPlan(old: Data(Self.base.utf8), new: without).restart == ["ui"])
        // The empty configuration (no file) against a file: every section it has.
        #expect(ReloadPlan(old: nil, new: Data(#"{"sync": {"base_url": "https://b.example"}}"#.utf8)).restart == ["sync"])
    }

    /// The same key with another value: a number +1, a string with "x" added.
    static func altered(_ fragment: String) -> String {
        if let number = fragment.split(separator: " ").last.flatMap({ Double($0) }) {
            return fragment.replacingOccurrences(of: String(fragment.split(separator: " ").last ?? ""), with: String(number + 1))
        }
        guard let quote = fragment.lastIndex(of: "\"") else { return fragment }
        var out = fragment
        out.insert("x", at: quote)
        return out
    }
}
