import EdgeCore

/// A refused payload configuration: sponsor table or configured classes (ENR-4, SCN-6).
///
/// `message` names where the problem is (e.g. `sponsors[2].backend_url: ...`) but not the file:
/// the caller that read the file adds its name.
public typealias PayloadConfigError = CodedError<PayloadConfigErrorCode>

public enum PayloadConfigErrorCode: String, Sendable, Hashable {
    case malformedJSON = "malformed-json"
    case missingField = "missing-field"
    case wrongType = "wrong-type"
    case badPrefix = "bad-prefix"
    case duplicatePrefix = "duplicate-prefix"
    case badSponsorID = "bad-sponsor-id"
    case badBackendURL = "bad-backend-url"
    case badClassName = "bad-class-name"
    case duplicateClassName = "duplicate-class-name"
    case invalidPattern = "invalid-pattern"
    case badSymbologies = "bad-symbologies"
}

extension CodedError where Code == PayloadConfigErrorCode {
    /// The same error located at `codingPath` ("sponsors[2]: ..."); an already located error is kept.
    func located(at codingPath: [any CodingKey]) -> PayloadConfigError {
        guard context["path"] == nil, !codingPath.isEmpty else { return self }
        let path = Self.pathString(codingPath)
        var context = self.context
        context["path"] = path
        return PayloadConfigError(code, "\(path): \(message)", context: context)
    }

    /// Maps JSONDecoder's errors onto config errors with a readable path.
    static func from(_ error: any Error) -> PayloadConfigError {
        if let error = error as? PayloadConfigError { return error }
        guard let error = error as? DecodingError else {
            return PayloadConfigError(.malformedJSON, "the configuration could not be read: \(error)")
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            let at = ctx.codingPath.isEmpty ? "the configuration" : pathString(ctx.codingPath)
            return PayloadConfigError(.missingField, "\(at): missing \"\(key.stringValue)\"",
                                      context: pathContext(ctx.codingPath + [key]))
        case .typeMismatch(let type, let ctx):
            let at = ctx.codingPath.isEmpty ? "the configuration" : pathString(ctx.codingPath)
            return PayloadConfigError(.wrongType, "\(at) must be \(typeName(type))", context: pathContext(ctx.codingPath))
        case .valueNotFound(let type, let ctx):
            let at = ctx.codingPath.isEmpty ? "the configuration" : pathString(ctx.codingPath)
            return PayloadConfigError(.wrongType, "\(at) must be \(typeName(type)), not null", context: pathContext(ctx.codingPath))
        case .dataCorrupted(let ctx):
            let underlying = ctx.underlyingError.map { " (\(String(describing: $0)))" } ?? ""
            if ctx.codingPath.isEmpty {
                return PayloadConfigError(.malformedJSON, "the configuration is not valid JSON\(underlying)")
            }
            return PayloadConfigError(.wrongType, "\(pathString(ctx.codingPath)): \(ctx.debugDescription)",
                                      context: pathContext(ctx.codingPath))
        @unknown default:
            return PayloadConfigError(.malformedJSON, "the configuration could not be read: \(error)")
        }
    }

    private static func pathContext(_ codingPath: [any CodingKey]) -> [String: String] {
        codingPath.isEmpty ? [:] : ["path": pathString(codingPath)]
    }

    static func pathString(_ codingPath: [any CodingKey]) -> String {
        CodingPathText.text(codingPath)
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") || name.contains("Container") { return "an object" }
            return "a value of type \(name)"
        }
    }
}
