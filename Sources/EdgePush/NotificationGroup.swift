/// The groups held notifications are summarised in at the end of quiet hours: one digest per
/// user and group (PSH-4).
///
/// Decision: alerts of every kind (KPI, anomaly, budget) share one group, since a person woken
/// by none of them wants one "alerts" line, not three; the other types are a group each.
public enum NotificationGroup: String, Sendable, Hashable, CaseIterable {
    case approvals
    case alerts
    case deliveries
    case assignments
    case enrollments

    /// "1 new approval", "10 new assignments - 3 urgent".
    public func summary(count: Int, urgent: Int) -> String {
        let noun: String
        switch self {
        case .approvals: noun = count == 1 ? "new approval" : "new approvals"
        case .alerts: noun = count == 1 ? "new alert" : "new alerts"
        case .deliveries: noun = count == 1 ? "delivery update" : "delivery updates"
        case .assignments: noun = count == 1 ? "new assignment" : "new assignments"
        case .enrollments: noun = count == 1 ? "enrollment update" : "enrollment updates"
        }
        let head = String(count) + " " + noun
        return urgent > 0 ? head + " - " + String(urgent) + " urgent" : head
    }
}
