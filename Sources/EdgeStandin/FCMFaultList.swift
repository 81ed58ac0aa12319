/// `POST /_standin/fcm/faults` with several faults: `{"faults": [...]}`.
struct FCMFaultList: Codable {
    var faults: [FCMFault]
}
