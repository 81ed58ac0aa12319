/// Why a notification is not pushed at all; stored as the FAILED record's reason.
public enum SuppressionReason: String, Sendable, Hashable, CaseIterable {
    case pushDisabled = "push_disabled"
    case typeDisabled = "type_disabled"
    /// Its TTL had passed before the relay saw it.
    case expired = "expired"
    /// The TTL passed while it was held for quiet hours (PSH-4).
    case expiredWhileHeld = "expired_while_held"
}
