/// `vendor` (SCN-6, RCV-4): QR JSON `{"type":"VENDOR","vendor_id":UUID,"tenant_id":UUID}`.
///
/// Decisions:
/// - Every problem is reported, joined with "; ", so the operator learns which field is bad
///   (symbology, type, vendor_id, tenant_id, nesting), in that order.
/// - Extra members with scalar values are tolerated (cards may grow a "name"); extra members that
///   are objects or arrays are refused: the card is flat, and nested data is where smuggled
///   payloads hide.
/// - Whether the tenant is the station's own (RCV-4) is the kiosk's check; this module has no tenant.
enum VendorRecognizer {
    static let fields = ["vendor_id", "tenant_id"]

    static func classify(_ object: [String: JSONValue], typeProblem: String?, symbology: Symbology) -> Classification {
        var problems: [String] = []
        if symbology != .qr {
            problems.append("vendor cards are QR codes; this is \(symbology.withArticle)")
        }
        if let typeProblem { problems.append(typeProblem) }
        var details: [String: String] = [:]
        for field in fields {
            let checked = check(object[field], field: field)
            if let uuid = checked.uuid { details[field] = uuid }
            if let problem = checked.problem { problems.append(problem) }
        }
        for key in object.keys.sorted() where key != "type" && !fields.contains(key) {
            if let value = object[key], value.isContainer {
                problems.append("unexpected nested value (\(value.kindName)) under \(PayloadText.quoted(key))")
            }
        }
        guard problems.isEmpty else { return .invalid(.vendor, problems.joined(separator: "; ")) }
        return .valid(.vendor, details)
    }

    /// The canonical UUID, or the user-facing problem with the field.
    private static func check(_ value: JSONValue?, field: String) -> (uuid: String?, problem: String?) {
        guard let value else { return (nil, "\(field) is missing") }
        guard case .string(let text) = value else {
            return (nil, "\(field) must be a UUID string, found \(value.kindName)")
        }
        guard let uuid = UUIDText.canonical(text) else {
            return (nil, "\(field) \(PayloadText.quoted(text)) is not a UUID (expected 8-4-4-4-12 hexadecimal digits)")
        }
        guard uuid != UUIDText.nilUUID else { return (nil, "\(field) is the nil UUID, which names no one") }
        return (uuid, nil)
    }
}
