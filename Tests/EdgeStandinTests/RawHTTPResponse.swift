import EdgeContract
import Foundation

/// One HTTP/1.1 response parsed from raw bytes (Content-Length bodies only: the stand-in always
/// sends one).
struct RawHTTPResponse {
    var status: Int
    /// Lower-cased names.
    var headers: [String: String]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ContractCoding.decode(T.self, from: body)
    }

    var json: JSONValue? { try? ContractCoding.decode(JSONValue.self, from: body) }

    var errorCode: String? { json?["error"]?["code"]?.stringValue }

    /// Every complete response in `bytes`, in order.
    static func parseAll(_ bytes: [UInt8]) -> [RawHTTPResponse] {
        var responses: [RawHTTPResponse] = []
        var rest = bytes[...]
        let separator: [UInt8] = [13, 10, 13, 10]
        while let end = rest.firstRange(of: separator) {
            let head = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { break }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = Int(headers["content-length"] ?? "0") ?? 0
            let bodyStart = end.upperBound
            guard rest.distance(from: bodyStart, to: rest.endIndex) >= length else { break }
            let bodyEnd = rest.index(bodyStart, offsetBy: length)
            responses.append(RawHTTPResponse(status: status, headers: headers, body: Array(rest[bodyStart..<bodyEnd])))
            rest = rest[bodyEnd...]
        }
        return responses
    }
}
