import EntitlementDomain
import Synchronization

/// Caps status streams per connection, so one client cannot hold every stream slot of the server.
/// (Streams per customer are capped by the ``StatusHub``.)
public final class StreamLimits: Sendable {
    private let open = Mutex<[UInt64: Int]>([:])
    public let maxPerConnection: Int

    public init(maxPerConnection: Int = 100) {
        self.maxPerConnection = maxPerConnection
    }

    /// Takes a slot for a stream on `connectionID`; `RESOURCE_EXHAUSTED` when none is left.
    func acquire(connectionID: UInt64) throws(DomainError) {
        let admitted = open.withLock { open -> Bool in
            guard open[connectionID, default: 0] < maxPerConnection else { return false }
            open[connectionID, default: 0] += 1
            return true
        }
        guard admitted else {
            throw .resourceExhausted("This connection already has \(maxPerConnection) open status streams.")
        }
    }

    func release(connectionID: UInt64) {
        open.withLock { open in
            open[connectionID, default: 1] -= 1
            if open[connectionID] == 0 { open[connectionID] = nil }
        }
    }
}
