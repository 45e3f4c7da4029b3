import BoundedText
import Synchronization

/// Delivers status updates to every open stream of a customer, whichever connection or alias opened it.
///
/// Publishing never blocks and never queues without bound: each subscription holds at most a few pending updates
/// and folds older ones into the latest, because status is state.
public final class StatusHub: Sendable {
    struct Key: Hashable {
        var tenantID: String
        var customerID: Int64
    }

    private let subscribers = Mutex<[Key: [ObjectIdentifier: StatusSubscription]]>([:])
    private let closedStreams = Atomic<Int>(0)
    public let maxStreamsPerCustomer: Int
    let maxPendingUpdates: Int

    public init(maxStreamsPerCustomer: Int = 16, maxPendingUpdates: Int = 8) {
        self.maxStreamsPerCustomer = maxStreamsPerCustomer
        self.maxPendingUpdates = maxPendingUpdates
    }

    /// A new stream for a customer; `RESOURCE_EXHAUSTED` past the per-customer limit.
    public func subscribe(tenantID: String, customerID: Int64) throws(DomainError) -> StatusSubscription {
        let key = Key(tenantID: tenantID, customerID: customerID)
        let subscription = StatusSubscription(hub: self, key: key, maxPending: maxPendingUpdates)
        let admitted = subscribers.withLock { subscribers -> Bool in
            guard subscribers[key, default: [:]].count < maxStreamsPerCustomer else { return false }
            subscribers[key, default: [:]][ObjectIdentifier(subscription)] = subscription
            return true
        }
        guard admitted else {
            throw .resourceExhausted(
                "This customer already has \(maxStreamsPerCustomer) open status streams; close one first.")
        }
        return subscription
    }

    /// Hands `update` to every stream of the customer.
    public func publish(tenantID: String, customerID: Int64, _ update: StatusUpdate) {
        let targets = subscribers.withLock { $0[Key(tenantID: tenantID, customerID: customerID)].map { Array($0.values) } }
        for subscription in targets ?? [] { subscription.deliver(update) }
    }

    /// After a merge, streams of the absorbed customer follow the survivor and start over from `snapshot`.
    /// They keep their slots even if the survivor then has more than ``maxStreamsPerCustomer``: cutting off a
    /// device because another one logged in would be worse than a brief overshoot, and new streams still wait.
    public func move(tenantID: String, from: Int64, to: Int64, snapshot: StatusUpdate) {
        let moved = subscribers.withLock { subscribers -> [StatusSubscription] in
            let fromKey = Key(tenantID: tenantID, customerID: from)
            let toKey = Key(tenantID: tenantID, customerID: to)
            guard let moving = subscribers.removeValue(forKey: fromKey) else { return [] }
            for (id, subscription) in moving {
                subscription.rekey(toKey)
                subscribers[toKey, default: [:]][id] = subscription
            }
            return Array(moving.values)
        }
        for subscription in moved { subscription.deliver(snapshot, replacingPending: true) }
    }

    /// Ends every stream of the customers with `reason` (their customer is gone: erased).
    public func end(tenantID: String, customerIDs: [Int64], with reason: DomainError) {
        let ending = subscribers.withLock { subscribers in
            customerIDs.flatMap { Array(subscribers[Key(tenantID: tenantID, customerID: $0)]?.values ?? [:].values) }
        }
        for subscription in ending { subscription.end(with: reason) }
    }

    /// The number of open streams, for tests and metrics.
    public var streamCount: Int {
        subscribers.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    /// Streams closed since the hub was made (each counted once, however often it is cancelled).
    public var closedStreamCount: Int { closedStreams.load(ordering: .relaxed) }

    /// Customers with at least one open stream.
    func subscribedCustomers() -> [(tenantID: String, customerID: Int64)] {
        subscribers.withLock { $0.keys.map { ($0.tenantID, $0.customerID) } }
    }

    /// Reads the subscription's key under the hub's lock, so a merge moving it at the same time cannot make the
    /// removal miss (and leak the slot).
    func remove(_ subscription: StatusSubscription) {
        subscribers.withLock { subscribers in
            let key = subscription.key
            subscribers[key]?[ObjectIdentifier(subscription)] = nil
            if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
        }
        closedStreams.add(1, ordering: .relaxed)
    }
}

/// One stream's mailbox. Iterate it for updates; ``cancel()`` unsubscribes (the hub holds it until then).
public final class StatusSubscription: AsyncSequence, Sendable {
    public typealias Element = StatusUpdate

    private struct State {
        var key: StatusHub.Key
        var pending: [StatusUpdate] = []
        var waiter: CheckedContinuation<StatusUpdate?, Never>?
        var cancelled = false
        var endedBy: DomainError?
    }

    private weak let hub: StatusHub?
    private let state: Mutex<State>
    private let maxPending: Int

    init(hub: StatusHub, key: StatusHub.Key, maxPending: Int) {
        self.hub = hub
        self.state = Mutex(State(key: key))
        self.maxPending = maxPending
    }

    /// The customer this stream follows now (it changes when a merge moves the stream).
    public var customerID: Int64 { key.customerID }

    var key: StatusHub.Key { state.withLock { $0.key } }

    func rekey(_ key: StatusHub.Key) {
        state.withLock { $0.key = key }
    }

    func deliver(_ update: StatusUpdate, replacingPending: Bool = false) {
        let waiter = state.withLock { state -> CheckedContinuation<StatusUpdate?, Never>? in
            guard !state.cancelled else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if replacingPending { state.pending.removeAll() }
            state.pending.append(update)
            if state.pending.count > maxPending { state.pending = [Self.fold(state.pending)] }
            return nil
        }
        waiter?.resume(returning: update)
    }

    /// Many updates the reader has not taken become one: the latest state, a status change if any was one.
    private static func fold(_ updates: [StatusUpdate]) -> StatusUpdate {
        var latest = updates[updates.count - 1]
        if updates.contains(where: { $0.kind == .snapshot }) {
            latest.kind = .snapshot
        } else if updates.contains(where: { $0.kind == .changed(.statusChanged) }) {
            latest.kind = .changed(.statusChanged)
        }
        latest.reason = "\(counted(updates.count, "change")) while the stream was not reading; latest: \(latest.reason)"
        return latest
    }

    /// The next update; nil once cancelled.
    public func next() async -> StatusUpdate? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StatusUpdate?, Never>) in
                let ready = state.withLock { state -> StatusUpdate?? in
                    if state.cancelled || Task.isCancelled { return .some(nil) }
                    if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    /// Why the server ended the stream (``StatusHub/end(tenantID:customerIDs:with:)``); nil while it is open and
    /// after the client cancelled it.
    public var endedBy: DomainError? { state.withLock { $0.endedBy } }

    /// Ends the stream with `reason` (its customer erased, its user token expired): ``next()`` returns nil from now on
    /// and ``endedBy`` says why.
    public func end(with reason: DomainError) {
        state.withLock { $0.endedBy = $0.cancelled ? nil : reason }
        cancel()
    }

    public func cancel() {
        let (waiter, wasOpen) = state.withLock { state -> (CheckedContinuation<StatusUpdate?, Never>?, Bool) in
            guard !state.cancelled else { return (nil, false) }
            state.cancelled = true
            defer { state.waiter = nil }
            return (state.waiter, true)
        }
        waiter?.resume(returning: nil)
        if wasOpen { hub?.remove(self) }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: StatusSubscription
        public mutating func next() async -> StatusUpdate? { await subscription.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(subscription: self) }
}
