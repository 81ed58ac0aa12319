import EdgeCore
import FoundationEssentials

/// Finds the keys of edge.json that no part of edge reads (AGT-10), each with the nearest known
/// key at the same place when one is close enough to be its typo (`ConfigurationKeys.suggestion`).
///
/// Decisions: the keys of an unknown key's value are not looked at (the key is reported once);
/// values of the wrong kind (a list where an object belongs) are left to the decoders, which
/// say what was expected; keys are reported in key-path order, so the report is the same every run.
enum UnknownKeyFinder {
    static func problems(in data: Data, keys: ConfigurationKeys) -> [StationConfigurationError] {
        guard let document = try? JSONDecoder().decode(Node.self, from: data) else { return [] }
        var found: [StationConfigurationError] = []
        walk(document, keys, path: "", into: &found)
        return found
    }

    private static func walk(_ node: Node, _ keys: ConfigurationKeys, path: String, into found: inout [StationConfigurationError]) {
        // Keys come from the file: shown with their control characters escaped (DisplayText).
        func child(_ key: String) -> String {
            let shown = DisplayText.escaped(key, quoting: false)
            return path.isEmpty ? shown : path + "." + shown
        }
        switch (node, keys) {
        case (.object(let members), .object(let known)):
            for key in members.keys.sorted() {
                guard let member = members[key] else { continue }
                if let shape = known[key] {
                    walk(member, shape, path: child(key), into: &found)
                    continue
                }
                let reason = ConfigurationKeys.suggestion(for: key, among: known.keys).map { "unknown key; did you mean \(child($0))?" } ?? "unknown key"
                found.append(StationConfigurationError(.unknownKey, keyPath: child(key), reason))
            }
        case (.object(let members), .map(let shape)):
            for key in members.keys.sorted() {
                if let member = members[key] { walk(member, shape, path: child(key), into: &found) }
            }
        case (.array(let items), .array(let shape)):
            for (index, item) in items.enumerated() { walk(item, shape, path: path + "[\(index)]", into: &found) }
        default:
            return
        }
    }

    /// A JSON document reduced to what the walk needs: objects, lists, and everything else.
    private enum Node: Decodable {
        case object([String: Node])
        case array([Node])
        case scalar

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.container(keyedBy: Key.self) {
                var members: [String: Node] = [:]
                for key in object.allKeys { members[key.stringValue] = try object.decode(Node.self, forKey: key) }
                self = .object(members)
            } else if var list = try? decoder.unkeyedContainer() {
                var items: [Node] = []
                while !list.isAtEnd { items.append(try list.decode(Node.self)) }
                self = .array(items)
            } else {
                self = .scalar
            }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
