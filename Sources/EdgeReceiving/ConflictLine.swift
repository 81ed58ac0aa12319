/// One line of a lost confirmation (RCV-3): what the operator saw, what they confirmed, and what
/// the server has now, with the sentence to show.
public struct ConflictLine: Sendable, Hashable, Codable {
    public var lineNo: Int
    public var unit: String
    /// Already received when the operator confirmed (their copy of the order).
    public var receivedBefore: Double?
    /// Already received on the server now.
    public var receivedOnServer: Double
    public var ordered: Double
    /// What this confirmation said arrived (nil: the line was not in it).
    public var confirmed: Double?
    public var text: String

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case unit
        case receivedBefore = "received_before"
        case receivedOnServer = "received_on_server"
        case ordered, confirmed, text
    }
}
