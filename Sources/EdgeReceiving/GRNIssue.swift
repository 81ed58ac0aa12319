/// One thing wrong with (or worth a second look in) a GRN draft, for one line or the whole draft.
public struct GRNIssue: Sendable, Hashable, Codable {
    /// nil: about the draft as a whole.
    public var lineNo: Int?
    public var message: String

    public init(lineNo: Int?, message: String) {
        self.lineNo = lineNo
        self.message = message
    }

    enum CodingKeys: String, CodingKey {
        case lineNo = "line_no"
        case message
    }
}
