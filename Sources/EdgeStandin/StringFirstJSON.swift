import EdgeContract

/// A JSON document as a `JSONValue`, decoded trying a string first: the same value as
/// `ContractCoding.decode(JSONValue.self, ...)` for every document (JSONDecoder never turns a
/// string into another type or another type into a string), with far fewer misses.
///
/// Decision: `JSONValue.init(from:)` tries object, array, null, bool, integer and number before
/// a string, and JSONDecoder builds an error with its coding path for every miss: five per string
/// in an FCM message, about 130 a message. In the relay benchmark (Benchmarks section 6: relay
/// and stand-in on the same 2 cores, ~90 % busy at saturation) that was 46 % of the stand-in's
/// CPU (perf), the largest single cost on the machine; with this the stand-in's CPU per message
/// went from ~245 to ~165 µs. Only `messages:send`, the stand-in's hot path, uses it.
struct StringFirstJSON: Decodable {
    let value: JSONValue

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let string = try? decoder.singleValueContainer().decode(String.self) {
            value = .string(string)
        } else if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(StringFirstJSON.self, forKey: key).value }
            value = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(StringFirstJSON.self).value) }
            value = .array(elements)
        } else {
            // null, true/false, numbers: JSONValue's own order.
            value = try JSONValue(from: decoder)
        }
    }

    static func decode(_ bytes: [UInt8]) -> JSONValue? {
        (try? ContractCoding.decode(StringFirstJSON.self, from: bytes))?.value
    }
}
