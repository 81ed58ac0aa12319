/// Which card a JSON object claims to be. Judged loosely ("vendor", "VENDOR " and a missing type
/// next to `vendor_id` all count) so that a damaged card is reported as a bad vendor card with a
/// precise reason (SCN-6) instead of falling through to `unknown`.
enum JSONCardKind: Equatable {
    case vendor
    case link

    /// `typeProblem`: why the "type" member is not exactly right (nil when it is).
    /// `typed`: the object has a "type" that names this card, as opposed to being guessed from keys.
    static func detect(_ object: [String: JSONValue]) -> (kind: JSONCardKind, typeProblem: String?, typed: Bool)? {
        if let type = object["type"] {
            guard case .string(let name) = type else {
                if hasVendorKeys(object) {
                    return (.vendor, "\"type\" must be the string \"VENDOR\", found \(type.kindName)", false)
                }
                if object["code"] != nil {
                    return (.link, "\"type\" must be the string \"LINK\", found \(type.kindName)", false)
                }
                return nil
            }
            let folded = ASCII.string(name.utf8.filter(ASCII.isAlphanumeric).map(ASCII.uppercased))
            if folded == "VENDOR" {
                return (.vendor, name == "VENDOR" ? nil : "\"type\" must be exactly \"VENDOR\", found \(PayloadText.quoted(name))", true)
            }
            if folded == "LINK" {
                return (.link, name == "LINK" ? nil : "\"type\" must be exactly \"LINK\", found \(PayloadText.quoted(name))", true)
            }
            // Some other card type: not ours to judge.
            return nil
        }
        if hasVendorKeys(object) { return (.vendor, "the vendor card has no \"type\": \"VENDOR\"", false) }
        if object["code"] != nil { return (.link, "the linking-code JSON has no \"type\": \"LINK\"", false) }
        return nil
    }

    private static func hasVendorKeys(_ object: [String: JSONValue]) -> Bool {
        object["vendor_id"] != nil || object["tenant_id"] != nil
    }
}
