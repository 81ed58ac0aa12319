import EdgeAgent
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
}
