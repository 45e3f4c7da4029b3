import EntitlementsProto
public import Foundation

/// The app's view of its user's entitlements: a live cache of the server's status, OR-ed with the device's own
/// store data.
///
/// It starts with the last status the cache kept (marked `.cache`), asks the server (`SyncStatus`) and holds one
/// `StreamStatus` open while anyone observes and the app is in the foreground, resuming after every disconnect from
/// the last version seen (`after_version`) after a backoff with full jitter; every observer shares that one stream.
/// A published status never goes back to a lower server version than one already seen, and each one is cached.
public actor Entitlements {
    public struct Configuration: Sendable {
        public var transport: any EntitlementsTransport
        public var cache: any StatusCache
        /// The device's own store data (``StoreKitEntitlementSource`` on Apple platforms); nil for none.
        public var localSource: (any LocalEntitlementSource)?
        /// Which entitlements each product unlocks, for what the local source shows (the tenant's product map).
        public var productEntitlements: [String: Set<String>]
        public var backoff: ReconnectBackoff
        /// Picks the wait before a reconnect from zero to the backoff's step: uniformly at random (full jitter)
        /// unless a test fixes it.
        public var jitter: @Sendable (Duration) -> Duration
        public var clock: EntitlementsClock
        public var log: EntitlementsLog
        /// The tenant's status keys, pinned: every status from the server must carry a `signed_status` one of them
        /// signed, for this user, not past its validity, or it is ignored; the cache keeps the signed form; and
        /// while the server cannot be reached the last one is shown `offline` until its validity ends. nil: statuses
        /// are taken as they come.
        public var statusKeys: StatusKeys?

        public init(
            transport: any EntitlementsTransport, cache: any StatusCache = MemoryStatusCache(),
            localSource: (any LocalEntitlementSource)? = nil, productEntitlements: [String: Set<String>] = [:],
            backoff: ReconnectBackoff = ReconnectBackoff(),
            jitter: @escaping @Sendable (Duration) -> Duration = ReconnectBackoff.fullJitter,
            clock: EntitlementsClock = .system, log: EntitlementsLog = .silent, statusKeys: StatusKeys? = nil
        ) {
            self.transport = transport
            self.cache = cache
            self.localSource = localSource
            self.productEntitlements = productEntitlements
            self.backoff = backoff
            self.jitter = jitter
            self.clock = clock
            self.log = log
            self.statusKeys = statusKeys
        }
    }

    let configuration: Configuration
    var transport: any EntitlementsTransport { configuration.transport }
    var log: EntitlementsLog { configuration.log }

    /// Who the SDK speaks for, as cached.
    var identity: CachedIdentity
    /// Whether `Identify` ran for `identity.appUserID` in this run (a stream of an unknown customer is refused).
    var identifiedOnServer = false
    /// Bumped whenever the user changes, so answers about the previous user are dropped.
    var generation = 0
    /// The server's last word for this user (a cached one at first).
    var server: StatusSnapshot
    /// What the local source shows now.
    var local: [LocalTransaction] = []
    /// What observers see: `server` OR `local`.
    public private(set) var current: StatusSnapshot

    var observers: [UUID: AsyncStream<StatusUpdate>.Continuation] = [:]
    /// Callers of `status(atLeast:)` waiting for a publish.
    var waiters: [UUID: VersionWaiter] = [:]
    var stream: Task<Void, Never>?
    var reconnectWait: Task<Void, any Error>?
    var inForeground = true
    var started = false
    var localUpdates: Task<Void, Never>?
    var localExpiry: Task<Void, Never>?
    /// Ends a signed status's time on screen with its validity (``watchValidity()``).
    var validityWatch: Task<Void, Never>?
    /// Takes each entitlement of an offline status away when it ends (``watchOfflineExpiries()``).
    var offlineExpiries: Task<Void, Never>?
    /// Updates from the local source, numbered, so that a re-read that was under way when one arrived does not undo
    /// it (the last few only).
    var localUpdateLog: [(number: Int, transaction: LocalTransaction)] = []
    var localUpdateCount = 0
    /// Local transactions the server accepted in this run (by ``LocalTransaction/forwardingKey``).
    var forwarded: Set<String> = []
    /// Local transactions not accepted yet because the server could not be reached; sent again on the next
    /// foreground, network change or successful refresh.
    var unforwarded: [String: LocalTransaction] = [:]

    /// How many times the status stream was opened, for diagnostics and tests.
    public internal(set) var streamsOpened = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
        let identity =
            configuration.cache.loadIdentity()
            ?? CachedIdentity(appUserID: AnonymousID.generate())
        self.identity = identity
        server = Self.cachedSnapshot(configuration, for: identity.appUserID) ?? .unknown(identity.appUserID)
        current = server
        if configuration.cache.loadIdentity() == nil { try? configuration.cache.saveIdentity(identity) }
    }

    deinit {
        stream?.cancel()
        reconnectWait?.cancel()
        localUpdates?.cancel()
        localExpiry?.cancel()
        validityWatch?.cancel()
        offlineExpiries?.cancel()
    }

    /// The ID the SDK speaks for: the signed-in account, or the anonymous ID (`$anon:` + UUID).
    public var appUserID: String { identity.appUserID }
    public var isAnonymous: Bool { AnonymousID.isAnonymous(identity.appUserID) }

    /// The token to pass as StoreKit's `appAccountToken` purchase option for the current user, once the server gave
    /// one (after ``start()`` or ``identify(_:)``): a purchase made with it is this user's even if the device never
    /// reports it.
    public var appAccountToken: UUID? { identity.appAccountTokens[identity.appUserID] }

    /// Call once at launch: reads the local source, listens to its updates, and asks the server. Errors reaching the
    /// server are logged, not thrown: the cached status stands and the stream retries.
    public func start() async {
        guard !started else { return }
        started = true
        if let source = configuration.localSource {
            localUpdates = Task { [weak self] in
                for await transaction in source.transactionUpdates() { await self?.receivedLocal(transaction) }
            }
            await rereadLocal()
        }
        watchValidity()
        let startingGeneration = generation
        do {
            try await refresh()
        } catch _ where generation != startingGeneration {
            // identify or logOut switched the user while the answer was on its way: theirs stands, nothing failed.
            log(.debug, "SyncStatus at start was for the previous user; \(identity.appUserID) is identified now.")
        } catch {
            log(.warning, "SyncStatus at start failed: \(error)")
        }
        await forwardLocalNotShown()
    }

    /// Every status from now on, the latest known first. The shared server stream opens with the first observer and
    /// closes after the last one stops.
    public func updates() -> AsyncStream<StatusUpdate> {
        let id = UUID()
        let (updates, continuation) = AsyncStream.makeStream(of: StatusUpdate.self, bufferingPolicy: .bufferingNewest(8))
        continuation.yield(StatusUpdate(snapshot: current, change: nil))
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        observers[id] = continuation
        openStreamIfWanted()
        return updates
    }

    /// Asks the server now (at launch and on every return to the foreground) and publishes its answer.
    @discardableResult
    public func refresh() async throws -> StatusSnapshot {
        let (generation, appUserID) = (generation, identity.appUserID)
        do {
            try await identifyIfNeeded()
        } catch let error as EntitlementsError where error.isUnreachable {
            serverUnreachable()
            throw error
        }
        try checkUser(generation)
        do {
            let customer = try await call { try await transport.syncStatus(appUserID: appUserID) }
            try checkUser(generation)
            await publishServer(customer, generation: generation)
        } catch let error as EntitlementsError where error.isUnreachable {
            serverUnreachable()
            throw error
        } catch let error as EntitlementsError where error.code == .notFound {
            // Erased: the person asked to be forgotten, so the SDK continues as a new user instead.
            if error.message.hasPrefix(Self.deletedPrefix) {
                try await logOut()
                return current
            }
            serverForgotCustomer()
            try await identifyIfNeeded()  // creates the customer again and publishes its status
        }
        await forwardUnforwarded()
        return current
    }

    /// The server answered NOT_FOUND for the user it was told of (its database was reset or restored, say): Identify
    /// again before the next call, and take the server's next answer whatever its version, since the versions seen
    /// were those of a customer the server no longer holds.
    func serverForgotCustomer() {
        identifiedOnServer = false
        if server.origin == .server { server.origin = .cache }
    }

    private func removeObserver(_ id: UUID) {
        observers[id] = nil
        if observers.isEmpty { closeStream() }
    }

    // MARK: Publishing

    /// Takes a server answer for the user of `generation`, unless it is older than what was seen; if it takes away
    /// an entitlement the local source showed, asks the local source again first.
    func publishServer(_ customer: CustomerStatus, generation: Int) async {
        guard generation == self.generation, let snapshot = serverSnapshot(customer, for: identity.appUserID) else { return }
        guard server.origin != .server || snapshot.version >= server.version, !replaysOlder(snapshot) else { return }
        let lost = current.status.entitlementIDs.subtracting(snapshot.status.entitlementIDs)
        if configuration.localSource != nil, !lost.isDisjoint(with: current.localEntitlementIDs.union(localBackedIDs())) {
            await rereadLocal(publishing: false)
            guard generation == self.generation, server.origin != .server || snapshot.version >= server.version
            else { return }
        }
        server = snapshot
        try? configuration.cache.saveStatus(snapshot)
        republish()
        if snapshot.validUntil != nil { watchValidity() }
        for (id, waiter) in waiters where waiter.generation == generation && waiter.version <= snapshot.version {
            resumeWaiter(id)
        }
    }

    /// Throws if the user changed since `generation` (the caller's answer would be about someone else).
    func checkUser(_ generation: Int) throws {
        guard generation == self.generation else {
            throw EntitlementsError(code: .cancelled, message: "The user changed (identify or logOut) during the call.")
        }
    }

    /// Recombines the server's status with the local one and tells observers if anything they see changed.
    func republish() {
        let now = configuration.clock.now()
        let next = server.shown(at: now).including(
            local: local, productEntitlements: configuration.productEntitlements, at: now)
        let change = current.change(to: next)
        let newer = next.version != current.version || next.origin != current.origin || next.appUserID != current.appUserID
        current = next
        guard change != nil || newer else { return }
        for observer in observers.values { observer.yield(StatusUpdate(snapshot: next, change: change)) }
    }

    /// The entitlements the local source backs now (whether or not the server shows them too).
    private func localBackedIDs() -> Set<String> {
        let now = configuration.clock.now()
        return Set(local.filter { $0.isActive(at: now) }.flatMap { configuration.productEntitlements[$0.productID] ?? [] })
    }

    func saveIdentity() {
        do { try configuration.cache.saveIdentity(identity) } catch { log(.warning, "Could not cache the identity: \(error)") }
    }

    /// Runs a transport call about `appUserID` (the current user unless given), turning whatever it throws into
    /// ``EntitlementsError``; a call whose user token the server refused is made once more with a fresh one.
    func call<Result>(about appUserID: String? = nil, _ body: () async throws -> Result) async throws -> Result {
        do {
            return try await attempt(body)
        } catch let error as EntitlementsError where error.refusesUserToken {
            guard let tokens = transport.userTokens else { throw error }
            await tokens.refused(for: appUserID ?? identity.appUserID)
            return try await attempt(body)
        }
    }

    private func attempt<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            try Task.checkCancellation()
            return try await body()
        } catch let error as EntitlementsError {
            throw error
        } catch is CancellationError {
            throw EntitlementsError(code: .cancelled, message: "The call was cancelled.")
        } catch {
            throw EntitlementsError(code: .unknown, message: "\(error)")
        }
    }
}
