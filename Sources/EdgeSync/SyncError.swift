import EdgeCore
import EdgeHTTP
import EdgeStore

public typealias SyncError = CodedError<SyncErrorCode>

extension SyncError {
    static func store(_ error: StoreError) -> SyncError {
        var context = error.context
        context["store"] = error.code.rawValue
        return SyncError(.storeFailure, error.message, context: context)
    }

    static func transport(_ error: TransportError) -> SyncError {
        var context = error.context
        context["transport"] = error.code.rawValue
        return SyncError(.transportFailure, error.message, context: context)
    }
}
