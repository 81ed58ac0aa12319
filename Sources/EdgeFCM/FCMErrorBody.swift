import EdgeContract

/// The parts of FCM's error envelope the taxonomy reads (PSH-9): `error.status`, the
/// `FcmError` detail's `errorCode`, and whether a `BadRequest` field violation names
/// `message.token`.
struct FCMErrorBody {
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    var status: String?
    var fcmErrorCode: String?
    var concernsToken = false

    /// Anything that is not the envelope (a proxy's HTML page) leaves every field empty.
    init(_ document: JSONValue?) {
        guard let error = document?["error"] else { return }
        status = error["status"]?.stringValue
        guard case .array(let details)? = error["details"] else { return }
        for detail in details {
            switch detail["@type"]?.stringValue {
            case Self.fcmErrorType?:
                fcmErrorCode = detail["errorCode"]?.stringValue
            case Self.badRequestType?:
                if case .array(let violations)? = detail["fieldViolations"] {
                    concernsToken = concernsToken || violations.contains { $0["field"]?.stringValue == "message.token" }
                }
            default:
                break
            }
        }
    }
}
