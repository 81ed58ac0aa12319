@testable import EdgeAgent
import EdgeCore
import EdgeTestSupport
import Glibc
import FoundationEssentials
import Testing

@Suite struct StationConfigurationTests {
    @Test func errorsNameTheKeyPath() throws {
        let cases: [(String, String)] = [
            (#"{"station": {"cameras": [{"name": "dock", "device": "/dev/video0"}, {"name": "x"}]}}"#, "station.cameras[1].device"),
            (#"{"station": {"pull_interval": "often"}}"#, "station.pull_interval"),
            (#"{"station": {"metrics": "0.0.0.0:9000"}}"#, "station.metrics"),
            (#"{"station": {"cameras": [{"name": "a", "device": "/dev/video0"}, {"name": "a", "device": "/dev/video1"}]}}"#, "station.cameras[1].name"),
            (#"{"station": {"scan_events": {"classes": {"linking-code": "sync"}}}}"#, "station.scan_events.classes.linking-code"),
            (#"{"sync": {"base_url": "http://192.0.2.1/"}}"#, "sync.base_url"),
            (#"{"cameras": [{"usb": "046d:0825", "format": "XX"}]}"#, "cameras[0].format"),
            (#"{"station": {"cameras": [{"name": "a", "device": "/dev/video0", "width": 640}]}}"#, "station.cameras[0].height"),
            (#"{"station": {"cameras": [{"name": "a", "device": "/dev/video0", "format": "XX"}]}}"#, "station.cameras[0].format"),
        ]
        for (json, keyPath) in cases {
            let error = #expect(throws: StationConfigurationError.self) { try StationConfiguration.parse(Data(json.utf8)) }
            #expect(error?.keyPath == keyPath, "\(json)")
        }
    }

    @Test func loadNamesTheFileAndRefusesAFIFO() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/edge.json"
        try Data(#"{"station": {"role": "kitchen"}}"#.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: StationConfigurationError.self) { try StationConfiguration.load(path: path) }
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("station.role") == true)
        let fifo = dir.path + "/fifo.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = #expect(throws: StationConfigurationError.self) { try StationConfiguration.load(path: fifo) }
        #expect(refused?.code == .unreadable)
    }

    @Test func defaultsAndPolicy() throws {
        let configuration = try StationConfiguration.parse(Data(#"{"station": {"scan_events": {"default": "ignore", "classes": {"unknown": "keep"}}}}"#.utf8))
        let policy = configuration.station.scanEvents
        #expect(policy.action(for: "purchase-order") == .sync)
        #expect(policy.action(for: "unknown") == .keep)
        #expect(policy.action(for: "pallet") == .ignore)
        #expect(policy.action(for: "linking-code") == .ignore)
        #expect(configuration.station.pullInterval == 30)
    }

    /// AGT-10: typos at every depth (a top-level section, a section's key, an entry of a list of
    /// objects, a nested object) are refused, each naming the file and key path with the nearest
    /// known key; keys the operator names (camera controls, payload classes) are not typos.
    @Test func unknownKeysAreRefusedWithTheNearestKnownKey() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/edge.json"
        try Data("""
            {"snyc": {"base_url": "http://127.0.0.1:1"},
             "sponsors": [{"prefix": "AB", "sponsor_id": "sponsor-ab", "backend_url": "http://127.0.0.1:1", "backend_ulr": "x"}],
             "cameras": [{"usb": "046d:0825", "controls": {"focus_absolute": 0}, "bufers": 2}],
             "station": {"nmae": "dock-1", "colour": "blue",
                         "cameras": [{"name": "a", "device": "/dev/video0"}, {"name": "b", "device": "/dev/video1", "fsp": 5}],
                         "scan_events": {"defualt": "keep", "classes": {"pallet": "sync"}}}}
            """.utf8).write(to: URL(fileURLWithPath: path))
        let problems = StationConfiguration.check(path: path)
        #expect(problems.map(\.message) == [
            "configuration \(path): cameras[0].bufers: unknown key; did you mean cameras[0].buffers?",
            "configuration \(path): snyc: unknown key; did you mean sync?",
            "configuration \(path): sponsors[0].backend_ulr: unknown key; did you mean sponsors[0].backend_url?",
            "configuration \(path): station.cameras[1].fsp: unknown key; did you mean station.cameras[1].fps?",
            "configuration \(path): station.colour: unknown key",
            "configuration \(path): station.nmae: unknown key; did you mean station.name?",
            "configuration \(path): station.scan_events.defualt: unknown key; did you mean station.scan_events.default?",
        ])
        #expect(problems.allSatisfy { $0.code == .unknownKey && $0.context["file"] == path })
        // Loading refuses the file with its first problem.
        let error = #expect(throws: StationConfigurationError.self) { try StationConfiguration.load(path: path) }
        #expect(error?.keyPath == "cameras[0].bufers")
        // A capability's section is a typo too unless its owner is given.
        let ui = #expect(throws: StationConfigurationError.self) { try StationConfiguration.parse(Data(#"{"ui": {"listen": "127.0.0.1:0"}}"#.utf8)) }
        #expect(ui?.code == .unknownKey && ui?.keyPath == "ui")
    }

    /// `check` reports every problem at once: the unknown keys, then each section's bad value.
    @Test func everyProblemOfTheFileAtOnce() throws {
        let data = Data(#"{"station": {"nmae": "x", "pull_interval": 0}, "sync": {"base_url": "ftp://backend.invalid"}}"#.utf8)
        let problems = StationConfiguration.evaluate(data, sections: []).problems
        #expect(problems.map(\.keyPath) == ["station.nmae", "sync.base_url", "station.pull_interval"])
        #expect(problems.map(\.code) == [.unknownKey, .invalid, .invalid])
        // Not JSON, or not an object: one problem, nothing more to say.
        #expect(StationConfiguration.evaluate(Data("[1]".utf8), sections: []).problems.count == 1)
        #expect(StationConfiguration.evaluate(Data("{".utf8), sections: []).problems.map(\.message) == ["configuration edge.json: is not valid JSON"])
    }

    /// The threshold written next to `ConfigurationKeys.suggestion`: a third of the known key's
    /// length, at least 1 and at most 2 edits (a swap of neighbours is one), case ignored.
    @Test func aSuggestionIsACloseKeyOrNone() {
        let station = ["name", "role", "tcti", "cameras", "metrics", "state_dir", "vault_dir", "vault_key_dir", "vault_backend",
                       "scan_events", "pull_interval", "repeat_gap"]
        #expect(ConfigurationKeys.suggestion(for: "nmae", among: station) == "name")
        #expect(ConfigurationKeys.suggestion(for: "Name", among: station) == "name")
        #expect(ConfigurationKeys.suggestion(for: "stateDir", among: station) == "state_dir")
        #expect(ConfigurationKeys.suggestion(for: "vault_dri", among: station) == "vault_dir")
        #expect(ConfigurationKeys.suggestion(for: "snyc", among: ["sync", "push", "station"]) == "sync")
        #expect(ConfigurationKeys.suggestion(for: "colour", among: station) == nil)
        #expect(ConfigurationKeys.suggestion(for: "pul_interval_s", among: station) == nil, "3 edits")
        #expect(ConfigurationKeys.suggestion(for: "fog", among: ["fps"]) == nil, "2 edits on a 3-letter key")
        #expect(ConfigurationKeys.suggestion(for: "fsp", among: ["fps"]) == "fps")
    }
}
