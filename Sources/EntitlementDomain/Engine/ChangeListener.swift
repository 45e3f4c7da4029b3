import Synchronization

/// One listener, set once by whoever acts on a kind of committed change (the expiry scheduler on new
/// `nextChangeAt` times, the webhook dispatcher on new outbox rows), told after each commit.
final class ChangeListener<Value: Sendable>: Sendable {
    private let listener = Mutex<(@Sendable (Value) -> Void)?>(nil)

    func set(_ body: @escaping @Sendable (Value) -> Void) {
        listener.withLock { $0 = body }
    }

    func notify(_ value: Value) {
        listener.withLock { $0 }?(value)
    }
}
