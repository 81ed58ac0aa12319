import Foundation

/// A value shared between a test and the capture thread it started.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
}
