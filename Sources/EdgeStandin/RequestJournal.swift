import EdgeCore


/// Every request received on a contract path, in order of arrival. Written by the connections'
/// channel handlers (which see requests even when a fault keeps them from the application),
/// read by tests and `GET /_standin/requests`.
public final class RequestJournal: Sendable {
    private struct State {
        var records: [RecordedRequest] = []
        var nextID = 1
    }

    private let state = Locked(State())

    public init() {}

    public var requests: [RecordedRequest] {
        state.withLock { $0.records }
    }

    public func clear() {
        state.withLock { $0.records = [] }
    }

    /// Records a request whose head just arrived; returns its id for the updates that follow.
    func begin(method: String, path: String, query: String?, headers: [(name: String, value: String)]) -> Int {
        var kept: [String: String] = [:]
        var hasAuthorization = false
        for (name, value) in headers {
            let lower = name.lowercased()
            if lower == "authorization" {
                // The token must not end up in test output or logs: presence only.
                hasAuthorization = true
                continue
            }
            kept[lower] = kept[lower].map { "\($0), \(value)" } ?? value
        }
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.records.append(RecordedRequest(
                id: id, method: method, path: path, query: query, headers: kept, hasAuthorization: hasAuthorization,
                idempotencyKey: kept["idempotency-key"]))
            return id
        }
    }

    func update(_ id: Int, _ change: (inout RecordedRequest) -> Void) {
        state.withLock { state in
            // Records are appended in id order: binary search would do, but journals are short.
            if let index = state.records.lastIndex(where: { $0.id == id }) {
                change(&state.records[index])
            }
        }
    }
}
