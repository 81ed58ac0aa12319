/// What a notification is about (PSH-1).
public enum NotificationType: String, Sendable, Hashable, CaseIterable {
    case kpiAlert = "KPI_ALERT"
    case anomalyAlert = "ANOMALY_ALERT"
    case approvalPending = "APPROVAL_PENDING"
    case deliveryUpdate = "DELIVERY_UPDATE"
    case budgetWarning = "BUDGET_WARNING"
    case assignmentCreated = "ASSIGNMENT_CREATED"
    case enrollmentUpdate = "ENROLLMENT_UPDATE"

    /// The digest group the type is summarised in (PSH-4).
    public var group: NotificationGroup {
        switch self {
        case .approvalPending: return .approvals
        case .kpiAlert, .anomalyAlert, .budgetWarning: return .alerts
        case .deliveryUpdate: return .deliveries
        case .assignmentCreated: return .assignments
        case .enrollmentUpdate: return .enrollments
        }
    }
}
