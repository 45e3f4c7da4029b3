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
    private var appUserID = ""
    private var afterVersion: UInt64 = 0
    /// Set by ``begin(_:)`` when the user token names a key of the tenant's that must be fetched first.
    private var awaitingKeys: Caller?
    /// When the call's user token expires (seconds since the epoch): the stream ends then.
    private var tokenExpiresAt: Int64?
    private var expiry: Task<Void, Never>?
    /// ``loadSubscribed()``'s subscription and the customer's state read after it, until ``open(heartbeatOn:)`` takes
    /// them.
    private var loaded: (StatusSubscription, CustomerState)?
    /// Whether ``load()`` has read the customer into the cache once.
    private var warmedCache = false
    /// Messages picked but not yet sent: the snapshot, or the events replayed after the client's version; later the
    /// versions a live update skipped, read from the event log, and that update.
    private var queued: [(update: StatusUpdate, kind: ServiceMetrics.StreamMessage)] = []
    private var queuedSent = 0
    /// The customer's version the client has been sent; live updates at or below it are skipped.
    private var lastVersion: UInt64 = 0
    /// The tenant's `signed_status` as of the tenants' generation beside it, looked up again after a reload (not on
    /// every message: the tenants' lock is shared by every core).
    private var signing: (settings: StatusSigningSettings?, generation: UInt64)?

    /// The call has begun.
    @inline(never)
    init(streams: StatusStreams, context: ServerContext) {
        self.streams = streams
        self.context = context
        start = streams.log.started(context)
    }

    /// Authenticates the call and takes a stream of its connection's limit; ``open(heartbeatOn:)`` comes next.
    @inline(never)
    func begin(_ request: StreamStatusRequest) throws {
        let caller = try streams.log.authenticate(context, requires: .publicKey, scope: .read, in: streams.tenants, &fields)
        tenantID = caller.tenant.id
        appUserID = try AppUserID.validate(request.appUserID)
        switch try streams.userTokens.checkNow(caller, context, appUserID: appUserID, &fields) {
        case nil: awaitingKeys = caller
        case .accepted(let expiresAt)?: endsAt(expiresAt, caller)
        case .notNeeded?, .wouldRefuse?: break
        }
        afterVersion = request.afterVersion
        try streams.limits.acquire(connectionID: context.connectionID)
        holdsLimit = true
    }

    /// The user token ``begin(_:)`` could not judge without fetching the tenant's keys (rare: once per new `kid`).
    @inline(never)
    private func checkUserTokenWithFetchedKeys() async throws(DomainError) {
        guard let caller = awaitingKeys else { return }
        awaitingKeys = nil
        if case .accepted(let expiresAt) = try await streams.userTokens.check(caller, context, appUserID: appUserID, &fields) {
            endsAt(expiresAt, caller)
        }
    }

    /// A stream of a tenant that requires tokens lives as long as its token; an observing tenant's is never ended.
    private func endsAt(_ expiresAt: Int64, _ caller: Caller) {
        if caller.tenant.userTokens.mode == .required { tokenExpiresAt = expiresAt }
    }

    /// Subscribes to the customer and picks the first messages, without waiting: false when the user token's keys
    /// must be fetched or the customer is not cached, and ``load()`` must wait for them first. `heartbeatOn`: a gRPC-Web stream's writer, kept alive with
    /// heartbeats.
    @inline(never)
    func open(heartbeatOn writer: ResponseWriter<EncodedMessage<StatusEvent>>?) throws -> Bool {
        guard awaitingKeys == nil, let (subscription, current) = try loaded ?? subscribeCached() else { return false }
        self.subscription = subscription
        loaded = nil
        fields.appUserID = current.appUserID
        let replayed =
            afterVersion > 0
            ? try streams.engine.customers.replay(
                tenantID: tenantID, customerID: subscription.customerID, afterVersion: afterVersion, current: current)
            : nil
        if let replayed {
            streams.metrics.streamStarted(.resumedFromLog)
            queued = replayed.map { ($0, .replayed) }
            lastVersion = replayed.last?.state.version ?? afterVersion
        } else {
            streams.metrics.streamStarted(afterVersion > 0 ? .resumedWithSnapshot : .new)
            queued = [(StatusUpdate(kind: .snapshot, state: current, reason: "Current status."), .snapshot)]
            lastVersion = current.version
        }
        if let writer { heartbeat = StatusHeartbeat.start(every: streams.grpcWebHeartbeatInterval, on: writer) }
        if let tokenExpiresAt { expiry = endAtExpiry(tokenExpiresAt, subscription) }
        // Resumed and up to date, the stream has nothing to send: its headers go now, so the client knows it is
        // subscribed (a device that reconnected, and whoever times that) rather than waiting for the next change.
        if queued.isEmpty { context.sendHeaders(Metadata()) }
        return true
    }

    /// Why the server ended the subscription, if it did (its customer was erased).
    var endedBy: DomainError? { subscription?.endedBy }

    /// The next message to send; nil once the subscription has ended (the call is gone). A loop, not a recursion,
    /// around out-of-line steps, so the frame that waits stays narrow.
    func next() async -> Message? {
        while true {
            if let message = takeQueued() { return message }
            guard let update = await subscription?.next() else { return nil }
            if let message = receive(update) { return message }
        }
    }

    /// The next picked message not yet sent, if any.
    @inline(never)
    private func takeQueued() -> Message? {
        guard queuedSent < queued.count else {
            queued = []
            queuedSent = 0
            return nil
        }
        defer { queuedSent += 1 }
        return message(queued[queuedSent].update, as: queued[queuedSent].kind)
    }

    /// What a live `update` sends now: its message, or nil when the messages sent already cover it or it skips
    /// versions (then the versions between are queued, with the update after them).
    @inline(never)
    private func receive(_ update: StatusUpdate) -> Message? {
        guard case .changed = update.kind else {
            // A merge's snapshot always goes out.
            lastVersion = update.state.version
            return message(update, as: .snapshot)
        }
        if update.state.version <= lastVersion { return nil }
        if update.state.version > lastVersion + 1 {
            queued = catchUp(to: update)
            lastVersion = update.state.version
            return nil
        }
        lastVersion = update.state.version
        return message(update, as: .live)
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
        expiry?.cancel()
        if holdsLimit { streams.limits.release(connectionID: context.connectionID) }
        holdsLimit = false
        streams.log.finished(context, fields, error: error, since: start)
    }

    /// Ends the subscription with `UNAUTHENTICATED` once the user token that opened it has expired (with the clock
    /// skew tokens are allowed): a stream proves its user for as long as its token does.
    private func endAtExpiry(_ expiresAt: Int64, _ subscription: StatusSubscription) -> Task<Void, Never> {
        let now = streams.engine.now
        return Task {
            let due = (expiresAt + UserTokenClaimCheck.clockSkewSeconds) * 1000
            let wait = due - now().milliseconds
            if wait > 0 { try? await Task.sleep(for: .milliseconds(wait)) }
            guard !Task.isCancelled else { return }
            subscription.end(
                with: .unauthenticated(
                    "user token expired: open a new stream with a fresh token and after_version set to the last "
                        + "version received"))
        }
    }

    private func message(_ update: StatusUpdate, as kind: ServiceMetrics.StreamMessage) -> Message {
        // A replayed event carries the status as it was then, so the time it was computed, not the replay's.
        let now = streams.engine.now()
        var event = StatusEvent(update, serverTime: update.computedAt ?? now)
        if let signing = currentSigning() {
            // Replayed history is vouched for as of when it was logged; the customer's latest version holds now, so a
            // device back after longer than the validity still gets a status it may keep. A signing failure (never
            // expected) sends the event unsigned: the app then keeps what it has verified.
            let signedAt = update.state.version >= lastVersion ? now : update.computedAt ?? now
            event.customer?.signedStatus =
                (try? StatusSigning.sign(update.state, askedAs: appUserID, tenantID: tenantID, settings: signing, at: signedAt))?
                .token ?? ""
        }
        return Message(event: EncodedMessage(event.serializedBytes()), kind: kind, origin: update.origin)
    }

    /// The keys the tenant signs status with now, nil when it does not.
    private func currentSigning() -> StatusSigningSettings? {
        let generation = streams.tenants.generation
        if let signing, signing.generation == generation { return signing.settings }
        let settings = streams.tenants.directory.tenant(id: tenantID)?.signedStatus
        signing = (settings, generation)
        return settings
    }

    /// What ``open(heartbeatOn:)`` waits for: the user token's keys, fetched (an await here rather than in the
    /// handler, whose frame lives as long as the stream: 1 KB more per open stream, c2fd2ee); then the customer the
    /// cache did not hold, read the first time into the cache, where `open` finds them; should the cache have let them
    /// go again by then, subscribed and read from the database.
    @inline(never)
    func load() async throws(DomainError) {
        if awaitingKeys != nil {
            try await checkUserTokenWithFetchedKeys()
        } else if warmedCache {
            try await loadSubscribed()
        } else {
            guard try await streams.engine.customers.load(tenantID: tenantID, appUserID: appUserID) else {
                throw unknownCustomer()
            }
            warmedCache = true
        }
    }

    /// The error for an ID no customer has, made out of line: inlined, its reads widened ``load()``'s frame, which
    /// the task's allocator keeps for the stream's whole life (0.9 KB more per open stream, b5edcdf).
    @inline(never)
    private func unknownCustomer() -> DomainError {
        streams.engine.privacy.unknownCustomer(tenantID: tenantID, appUserID: appUserID, otherwise: .notIdentified(appUserID))
    }

    /// A subscription and the customer's state read after it: subscribed before reading, so no commit falls between
    /// the first message and the live updates; if a merge moved the ID to another customer in between, it follows
    /// and subscribes again.
    private func loadSubscribed() async throws(DomainError) {
        let engine = streams.engine
        while true {
            guard let customerID = try await engine.customers.state(tenantID: tenantID, appUserID: appUserID).customerID
            else {
                throw unknownCustomer()
            }
            let subscription = try engine.hub.subscribe(tenantID: tenantID, customerID: customerID)
            let current: CustomerState
            do throws(DomainError) {
                current = try await engine.customers.state(tenantID: tenantID, appUserID: appUserID)
            } catch {
                subscription.cancel()
                throw error
            }
            if current.customerID == subscription.customerID {
                loaded = (subscription, current)
                return
            }
            subscription.cancel()
        }
    }

    /// ``loadSubscribed()``'s subscription from the cache alone, without waiting; nil when the customer is not cached, or moved while
    /// subscribing.
    private func subscribeCached() throws(DomainError) -> (StatusSubscription, CustomerState)? {
        let customers = streams.engine.customers
        guard let customerID = customers.cachedState(tenantID: tenantID, appUserID: appUserID)?.state.customerID else {
            return nil
        }
        let subscription = try streams.engine.hub.subscribe(tenantID: tenantID, customerID: customerID)
        guard let current = customers.cachedState(tenantID: tenantID, appUserID: appUserID)?.state,
            current.customerID == customerID
        else {
            subscription.cancel()
            return nil
        }
        return (subscription, current)
    }
}
