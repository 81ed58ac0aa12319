import EdgeContract
import EdgeHTTP
import EdgeStore
import FoundationEssentials
import GRDB

/// Delta sync (SYN-9): asks for the changes after the stored opaque cursor and applies each page
/// with its new cursor and the exchange time in one transaction, so a crash between pages
/// re-fetches at most the page that was not committed.
public struct SyncPuller: Sendable {
    /// The cursor's name in `sync_cursors`.
    public static let cursorStream = "changes"
    /// Pages per pull, so a server that always says `has_more` cannot keep the station busy.
    public static let maxPages = 1000

    public let outbox: Outbox
    public let state: SyncState
    private let transport: any HTTPTransport
    private let tokens: any TokenProvider
    private let builder: OutboxRequestBuilder
    private let wallClock: @Sendable () -> Double

    public init(outbox: Outbox, transport: any HTTPTransport, tokens: any TokenProvider,
                baseURL: String, identity: SyncIdentity,
                wallClock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.outbox = outbox
        self.state = SyncState(database: outbox.database)
        self.transport = transport
        self.tokens = tokens
        self.builder = OutboxRequestBuilder(baseURL: baseURL, identity: identity)
        self.wallClock = wallClock
    }

    /// Pulls until the server has nothing more. `apply` runs inside each page's transaction;
    /// throwing from it rolls the page back, cursor included.
    public func pull(pageSize: Int = 100, apply: @escaping @Sendable (Database, [SyncChange]) throws -> Void) async throws(SyncError) -> PullReport {
        var report = PullReport()
        let token: BearerToken?
        do {
            token = try await tokens.token(for: nil)
        } catch {
            throw SyncError(.missingToken, "The station's token could not be read from the vault.", context: [:])
        }
        guard let token else {
            throw SyncError(.missingToken, "There is no station token in the vault; the station cannot pull.", context: [:])
        }
        var cursor: String?
        do {
            cursor = try state.cursor(stream: Self.cursorStream)
        } catch {
            throw SyncError.store(error)
        }
        for _ in 0..<Self.maxPages {
            var query = APIPath.syncPull + "?limit=\(max(1, min(pageSize, 1000)))"
            if let cursor { query += "&cursor=" + Self.percentEncoded(cursor) }
            let response: HTTPResponse
            do {
                response = try await transport.send(builder.get(query, token: token))
            } catch {
                throw SyncError.transport(error)
            }
            guard (200..<300).contains(response.status) else {
                let answer = SyncAnswer.classify(response, now: wallClock())
                throw SyncError(.serverRefused, "The backend refused the pull with HTTP \(response.status).",
                                context: ["status": String(response.status), "answer": "\(answer)"])
            }
            let page: SyncPullResponse
            do {
                page = try ContractCoding.decode(SyncPullResponse.self, from: response.body)
            } catch {
                throw SyncError(.invalidAnswer, "The backend's pull answer does not match the contract.",
                                context: ["bytes": String(response.body.count)])
            }
            guard !page.nextCursor.isEmpty, page.nextCursor.utf8.count <= 4096 else {
                throw SyncError(.invalidAnswer, "The backend's pull answer has an empty or oversized cursor.", context: [:])
            }
            let now = wallClock()
            do {
                try outbox.database.write { db in
                    try apply(db, page.changes)
                    try state.setCursor(db, page.nextCursor, stream: Self.cursorStream, now: now)
                    try outbox.recordExchange(db, .pull, at: now)
                }
            } catch {
                // A full or read-only disk is named (issue #30); the page is asked for again later.
                let stored = StoreError.wrapping(error, "apply pulled changes", path: outbox.database.path)
                throw SyncError(.storeFailure, stored.code == .storage ? "\(stored.message) The page was rolled back." : "Applying pulled changes failed; the page was rolled back.",
                                context: ["error": String(describing: error)].merging(stored.code == .storage ? stored.context : [:]) { $1 })
            }
            report.pages += 1
            report.changes += page.changes.count
            report.cursor = page.nextCursor
            cursor = page.nextCursor
            if !page.hasMore { break }
        }
        return report
    }

    /// RFC 3986 unreserved characters pass; everything else is %-encoded (the cursor is opaque).
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                result += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xf)])
            }
        }
        return result
    }
}
