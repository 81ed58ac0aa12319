/// The stand-in's own paths, outside the contract and off unless `controlAPI` is set.
public enum StandinControlPath {
    public static let prefix = "/_standin/"
    /// GET the faults in force, POST a FaultPlan (or one StandinFault) to add, DELETE to clear.
    public static let faults = "/_standin/faults"
    /// GET the RecordedRequest list, DELETE to clear it.
    public static let requests = "/_standin/requests"
    /// GET the AppliedRecord list.
    public static let applied = "/_standin/applied"
    /// POST `{"token" | "token_prefix" | "enrollment_id": ..., "code": "TOKEN_REVOKED" | "PATIENT_DISCONNECTED" | "UNAUTHORIZED"}`.
    public static let revoke = "/_standin/revoke"
    /// POST `{"stream", "kind", "payload", "id"?, "changed_at"?}` to append to the pull log.
    public static let changes = "/_standin/changes"
    /// POST a contract `PurchaseOrder`: the backend has it from now on (added or replaced), for
    /// orders the demo data does not have (the dock's counting benchmark: 40 lines).
    public static let orders = "/_standin/orders"
    /// POST `{"enrollment_id"}`: the investigator approves Study Start (ENR-13).
    public static let approve = "/_standin/approve"
    /// The FCM stand-in's faults (see `FCMFault`'s Codable shape): GET those in force, POST one
    /// fault or `{"faults": [...]}` to add, DELETE to clear.
    public static let fcmFaults = "/_standin/fcm/faults"
    /// GET the FCM messages received (accepted or refused), DELETE to forget them.
    public static let fcmMessages = "/_standin/fcm/messages"
}
