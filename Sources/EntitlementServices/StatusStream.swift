import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// One `StreamStatus` call between its waits: authenticates and subscribes, picks the first messages, filters and
/// encodes the live ones, and logs the call at its end. Confined to the call's task.
final class StatusStream {
    /// An encoded event and what the metrics record once it is handed to the connection.
    struct Message {
        var event: EncodedMessage<StatusEvent>
        var kind: ServiceMetrics.StreamMessage
        var origin: ContinuousClock.Instant?
    }

    private let streams: StatusStreams
    private let context: ServerContext
    private let start: UInt64
    private var fields = CallLog.Fields()
    /// Whether this call holds a stream of its connection's limit.
    private var holdsLimit = false
    private var subscription: StatusSubscription?
    private var heartbeat: StatusHeartbeat?
    private var tenantID = ""
    /// Messages picked but not yet sent: the snapshot, or the events replayed after the client's version; later the
    /// versions a live update skipped, read from the event log, and that update.
    private var queued: [(update: StatusUpdate, kind: ServiceMetrics.StreamMessage)] = []
    private var queuedSent = 0
    /// The customer's version the client has been sent; live updates at or below it are skipped.
    private var lastVersion: UInt64 = 0

    /// The call has begun.
    @inline(never)
    init(streams: StatusStreams, context: ServerContext) {
        self.streams = streams
        self.context = context
        start = streams.log.started(context)
    }

    /// Authenticates the call, subscribes to the customer `request` names and picks the first messages.
    /// `heartbeatOn`: a gRPC-Web stream's writer, kept alive with heartbeats.
    @inline(never)
    func open(
        _ request: StreamStatusRequest, heartbeatOn writer: ResponseWriter<EncodedMessage<StatusEvent>>?
    ) async throws {
        tenantID = try streams.log.authenticate(
            context, requires: .publicKey, scope: .read, in: streams.tenants, &fields
        ).tenant.id
        let appUserID = try AppUserID.validate(request.appUserID)
        try streams.limits.acquire(connectionID: context.connectionID)
        holdsLimit = true
        let (subscription, current) = try await subscribe(tenantID: tenantID, appUserID: appUserID)
        self.subscription = subscription
        fields.appUserID = current.appUserID
        let replayed =
            request.afterVersion > 0
            ? try streams.engine.customers.replay(
                tenantID: tenantID, customerID: subscription.customerID, afterVersion: request.afterVersion,
                current: current)
            : nil
        if let replayed {
            streams.metrics.streamStarted(.resumedFromLog)
            queued = replayed.map { ($0, .replayed) }
            lastVersion = replayed.last?.state.version ?? request.afterVersion
        } else {
            streams.metrics.streamStarted(request.afterVersion > 0 ? .resumedWithSnapshot : .new)
            queued = [(StatusUpdate(kind: .snapshot, state: current, reason: "Current status."), .snapshot)]
            lastVersion = current.version
        }
        if let writer { heartbeat = StatusHeartbeat.start(every: streams.grpcWebHeartbeatInterval, on: writer) }
        // Resumed and up to date, the stream has nothing to send: its headers go now, so the client knows it is
        // subscribed (a device that reconnected, and whoever times that) rather than waiting for the next change.
        if queued.isEmpty { context.sendHeaders(Metadata()) }
    }

    /// The next message to send; nil once the subscription has ended (the call is gone).
    func next() async -> Message? {
        if queuedSent < queued.count {
            defer { queuedSent += 1 }
            return message(queued[queuedSent].update, as: queued[queuedSent].kind)
        }
        queued = []
        queuedSent = 0
        while let update = await subscription?.next() {
            guard case .changed = update.kind else {
                // A merge's snapshot always goes out.
                lastVersion = update.state.version
                return message(update, as: .snapshot)
            }
            // Updates already covered by the messages sent are skipped.
            if update.state.version <= lastVersion { continue }
            if update.state.version > lastVersion + 1 {
                queued = catchUp(to: update)
                lastVersion = update.state.version
                return await next()
            }
            lastVersion = update.state.version
            return message(update, as: .live)
        }
        return nil
    }

    /// What to send for a live `update` that skips versions: the versions between, read from the event log, then the
    /// update itself; beyond the replay window (or if the log cannot be read now) a snapshot of the update's state,
    /// as a resume gets. Versions are skipped when several commits made elsewhere are announced together (another
    /// instance's group commit, one notification naming them all) or were folded while the stream was not reading.
    private func catchUp(to update: StatusUpdate) -> [(update: StatusUpdate, kind: ServiceMetrics.StreamMessage)] {
        let target = update.state.version
        guard let subscription,
            let replayed = try? streams.engine.customers.replay(
                tenantID: tenantID, customerID: subscription.customerID, afterVersion: lastVersion, current: update.state),
            case let between = replayed.prefix(while: { $0.state.version < target }),
            between.first?.state.version == lastVersion + 1, between.last?.state.version == target - 1
        else {
            return [(StatusUpdate(kind: .snapshot, state: update.state, reason: update.reason), .snapshot)]
        }
        return between.map { ($0, .replayed) } + [(update, .live)]
    }

    /// `message` was handed to the connection.
    func sent(_ message: Message) {
        streams.metrics.streamSent(message.kind, origin: message.origin)
        heartbeat?.wrote()
    }

    /// The call has ended, `error` nil if it succeeded: lets go of what it held and writes its log line.
    @inline(never)
    func finish(error: (any Error)?) {
        subscription?.cancel()
        heartbeat?.stop()
        if holdsLimit { streams.limits.release(connectionID: context.connectionID) }
        holdsLimit = false
        streams.log.finished(context, fields, error: error, since: start)
    }

    private func message(_ update: StatusUpdate, as kind: ServiceMetrics.StreamMessage) -> Message {
        // A replayed event carries the status as it was then, so the time it was computed, not the replay's.
        let event = StatusEvent(update, serverTime: update.computedAt ?? streams.engine.now())
        return Message(event: EncodedMessage(event.serializedBytes()), kind: kind, origin: update.origin)
    }

    /// A subscription and the customer's state read after subscribing: subscribed before reading, so no commit
    /// falls between the first message and the live updates; if a merge moved the ID to another customer in
    /// between, it follows and subscribes again.
    private func subscribe(tenantID: String, appUserID: String) async throws(DomainError)
        -> (StatusSubscription, CustomerState)
    {
        let engine = streams.engine
        while true {
            guard let customerID = try await engine.customers.state(tenantID: tenantID, appUserID: appUserID).customerID
            else {
                throw .notIdentified(appUserID)
            }
            let subscription = try engine.hub.subscribe(tenantID: tenantID, customerID: customerID)
            let current: CustomerState
            do throws(DomainError) {
                current = try await engine.customers.state(tenantID: tenantID, appUserID: appUserID)
            } catch {
                subscription.cancel()
                throw error
            }
            if current.customerID == subscription.customerID { return (subscription, current) }
            subscription.cancel()
        }
    }
}
