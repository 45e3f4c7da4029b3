import Synchronization

/// Request-side flow control for one call: bytes deframed but not yet taken by the handler.
///
/// While the handler keeps up, received bytes reopen the HTTP/2 window at once. Once it falls more than `limit`
/// behind, window updates wait until it catches up, so a client can never make the server buffer without bound.
final class InboundWindow: Sendable {
    private let queued = Atomic<Int>(0)
    private let deferred = Atomic<Int>(0)
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Loop side: `received` bytes arrived carrying `messageBytes` of messages now queued for the handler.
    /// Returns how many bytes to acknowledge to the peer now.
    func received(_ received: Int, queuedMessageBytes messageBytes: Int) -> Int {
        let total = queued.add(messageBytes, ordering: .acquiringAndReleasing).newValue
        guard total > limit else { return received }
        deferred.add(received, ordering: .acquiringAndReleasing)
        return 0
    }

    /// Handler side: `count` message bytes were taken. Returns deferred bytes the loop must now acknowledge.
    func consumed(_ count: Int) -> Int {
        let total = queued.subtract(count, ordering: .acquiringAndReleasing).newValue
        guard total <= limit, deferred.load(ordering: .acquiring) > 0 else { return 0 }
        return deferred.exchange(0, ordering: .acquiringAndReleasing)
    }
}
