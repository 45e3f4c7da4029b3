import Synchronization

/// One listener, set once by whoever acts on a kind of committed change (the expiry scheduler on new
/// `nextChangeAt` times, the webhook dispatcher on new outbox rows), told after each commit.
final class ChangeListener<Value: Sendable>: Sendable {
    /// The closure in a class: a generic closure copied out of the `Mutex` would be re-wrapped in a reabstraction
    /// thunk on every read.
    private final class Body: Sendable {
        let call: @Sendable (Value) -> Void

        init(_ call: @escaping @Sendable (Value) -> Void) {
            self.call = call
        }
    }

    private let listener = Mutex<Body?>(nil)

    func set(_ body: @escaping @Sendable (Value) -> Void) {
        let body = Body(body)
        listener.withLock { $0 = body }
    }

    func notify(_ value: Value) {
        listener.withLock { $0 }?.call(value)
    }
}
