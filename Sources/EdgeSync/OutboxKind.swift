/// What a capability declares about one of its outbox kinds (issue #27 item 5): the sync core and
/// the agent treat an entry by its kind's declaration, never by the kind's name, so they name no
/// capability's kinds (EdgeStation's `StationSchema.outboxKinds` lists them).
public struct OutboxKind: Sendable, Hashable {
    public let name: String
    /// The endpoint entries of this kind are POSTed to, with the payload as the body (an endpoint
    /// that owns its own rules, such as RCV-3's conflicts); nil: an event wrapped in a
    /// `SyncPushRequest` for `POST /api/sync/push`, as every undeclared kind is.
    public let path: String?
    /// A delivered entry of this kind confirms a delivery, which the push relay tells the team
    /// that receives goods (RCV-7).
    public let confirmsDelivery: Bool

    public init(name: String, path: String? = nil, confirmsDelivery: Bool = false) {
        self.name = name
        self.path = path
        self.confirmsDelivery = confirmsDelivery
    }
}
