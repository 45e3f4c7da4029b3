import Synchronization

/// What a service learned on a connection and keeps for the connection's later calls (the API key it authenticated
/// with, say): the transport makes one per connection, every call on it sees the same one, and it goes away with
/// the connection.
///
/// It holds one object, stored and read back by its type. Living with its connection, it is touched by that
/// connection's calls only, so its lock is not one that every core meets.
public final class ConnectionMemory: Sendable {
    private let stored = Mutex<(any AnyObject & Sendable)?>(nil)

    public init() {}

    /// The stored object, if it is a `Value`.
    public func load<Value: AnyObject & Sendable>(_: Value.Type) -> Value? {
        stored.withLock { $0 as? Value }
    }

    public func store(_ value: some AnyObject & Sendable) {
        stored.withLock { $0 = value }
    }
}
