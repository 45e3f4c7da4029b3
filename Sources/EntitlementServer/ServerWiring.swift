public import EntitlementDomain
public import EntitlementServices
import BoundedText
import EntitlementStorage
public import HTTP1
import HTTP2Transport
public import Metrics
public import RPCCore
public import OutboundHTTP
public import StandardServices

/// entitlementd's services over a repository and tenants, wired in one place for ``EntitlementServerApp`` and for the
/// test fixture (`TestSupport.EntitlementTestServer`): the engine and its expiry scheduler (not started), one set of
/// App Store verifiers for purchases and notifications, the gRPC router (Health, EntitlementService, AdminService,
/// any extra services, then reflection over all of them) and the plain-HTTP routes (`/healthz`, `/readyz`, App Store
/// and Google Play notifications, Stripe webhooks, and the demo page's files when given).
public struct ServerWiring: Sendable {
    /// The limits a deployment configures, and the ones tests turn down.
    public struct Limits: Sendable {
        /// ``StreamLimits`` of the EntitlementService.
        public var maxStreamsPerConnection: Int
        /// The hub's per-customer limit.
        public var maxStreamsPerCustomer: Int
        /// How many updates a stream that is not reading holds before they are folded.
        public var maxPendingUpdates: Int
        /// How many versions back `after_version` may resume from the log.
        public var replayLimit: Int
        /// How long a gRPC-Web status stream may stay silent before a `HEARTBEAT` event.
        public var grpcWebHeartbeatInterval: Duration
        /// The most writes that share one durable commit.
        public var maxWriteGroup: Int
        /// Write groups committed at once: 1 unless the database takes several writers (PostgreSQL).
        public var writeLanes: Int
        /// Reads of customers the cache did not hold: at once, and waiting.
        public var snapshotReads: SnapshotReadLimits

        public init(
            maxStreamsPerConnection: Int = 100, maxStreamsPerCustomer: Int = 16, maxPendingUpdates: Int = 8,
            replayLimit: Int = 1000, grpcWebHeartbeatInterval: Duration = .seconds(25),
            maxWriteGroup: Int = WriteQueueDefaults.maximumGroupSize, writeLanes: Int = 1,
            snapshotReads: SnapshotReadLimits = SnapshotReadLimits()
        ) {
            self.maxStreamsPerConnection = maxStreamsPerConnection
            self.maxStreamsPerCustomer = maxStreamsPerCustomer
            self.maxPendingUpdates = maxPendingUpdates
            self.replayLimit = replayLimit
            self.grpcWebHeartbeatInterval = grpcWebHeartbeatInterval
            self.maxWriteGroup = maxWriteGroup
            self.writeLanes = writeLanes
            self.snapshotReads = snapshotReads
        }
    }

    /// The background work (Google Play's, the webhook outbox's, retention), started and stopped together by the caller.
    public struct BackgroundWork: Sendable {
        public let acknowledger: PlayAcknowledger?
        public let voidedPurchases: VoidedPurchasesPoller?
        public let webhooks: WebhookDispatcher?
        public let appStoreReconciler: AppStoreReconciler?
        public let retention: RetentionJob

        public func start() {
            acknowledger?.start()
            voidedPurchases?.start()
            webhooks?.start()
            appStoreReconciler?.start()
            retention.start()
        }

        /// Returns at once; the loops end after the work in progress.
        public func stop() {
            let acknowledger = self.acknowledger
            let voidedPurchases = self.voidedPurchases
            let webhooks = self.webhooks
            let appStoreReconciler = self.appStoreReconciler
            let retention = self.retention
            Task {
                await acknowledger?.stop()
                await voidedPurchases?.stop()
                await webhooks?.stop()
                await appStoreReconciler?.stop()
                await retention.stop()
            }
        }
    }

    public let engine: CustomerEngine
    /// Records time-based status changes; the caller starts and stops it.
    public let scheduler: ExpiryScheduler
    public let background: BackgroundWork
    public let streamLimits: StreamLimits
    public let health: HealthService
    public let router: RPCRouter
    public let httpRouter: HTTPRouter
    /// Everything `/metrics` shows; the caller adds the transport's gRPC metrics once the server exists.
    public let metrics: MetricsRegistry

    /// - Parameters:
    ///   - isDraining: whether shutdown has begun, for `/readyz` (503 then).
    ///   - servesMetrics: whether `GET /metrics` is on this router (loopback clients only); false when a separate
    ///     metrics listener serves ``metricsRouter``.
    ///   - trustedProxies: whose forwarding header names a call's client (for the redemption limits).
    public init(
        repository: any CustomerRepository, tenants: TenantRegistry, logger: Logger,
        clock: any DomainClock = SystemClock(),
        limits: Limits = Limits(), trustedProxies: TrustedProxies = TrustedProxies(), outbound: OutboundHTTPClient? = nil,
        playAcknowledgements: PlayAcknowledger.Schedule = PlayAcknowledger.Schedule(),
        webhooks: WebhookDispatcher.Settings = WebhookDispatcher.Settings(),
        extraServices: [any RPCService] = [], demoPage: StaticFiles? = nil, adminConsole: StaticFiles? = nil,
        isDraining: @escaping @Sendable () -> Bool = { false }, servesMetrics: Bool = true
    ) {
        let callLog = CallLog(logger: logger)
        let serviceMetrics = ServiceMetrics()
        let engine = CustomerEngine(
            repository: repository, clock: clock,
            hub: StatusHub(maxStreamsPerCustomer: limits.maxStreamsPerCustomer, maxPendingUpdates: limits.maxPendingUpdates),
            replayLimit: limits.replayLimit, maxWriteGroup: limits.maxWriteGroup, writeLanes: limits.writeLanes,
            snapshotReads: limits.snapshotReads,
            webhookEndpoints: { tenants.directory.tenant(id: $0)?.webhooks ?? [] },
            commissions: { tenants.directory.tenant(id: $0)?.commissions ?? .defaults }
        ) { tenantID, update in
            callLog.change(tenantID: tenantID, update)
            serviceMetrics.changeCommitted(update)
        }
        scheduler = ExpiryScheduler(engine: engine) { error in
            logger.error("recording time-based status changes failed", ["error": error.description])
        }
        self.engine = engine
        streamLimits = StreamLimits(maxPerConnection: limits.maxStreamsPerConnection)

        // One set of App Store verifiers (and their chain caches) for purchases and notifications.
        let appStore = AppStorePurchases(tenants: tenants)
        let notifications = AppStoreNotifications(engine: engine, tenants: tenants, purchases: appStore, log: logger)
        // Google Play needs Google's API: without an outbound client it is refused.
        let playStore = outbound.map { PlayStorePurchases(
                tenants: tenants, http: $0, now: engine.now, stored: engine.purchases, log: logger) }
        let acknowledger = playStore.map {
            PlayAcknowledger(engine: engine, tenants: tenants, purchases: $0, log: logger, schedule: playAcknowledgements)
        }
        let deliverer = outbound.map { WebhookDeliverer(http: $0, now: engine.now) }
        let appStoreAPIs = AppStoreServerAPIs(tenants: tenants, http: outbound)
        let reconciler = outbound.map { _ in
            AppStoreReconciler(
                engine: engine, tenants: tenants, notifications: notifications, apis: appStoreAPIs, log: logger)
        }
        background = BackgroundWork(
            acknowledger: acknowledger,
            voidedPurchases: playStore.map { VoidedPurchasesPoller(engine: engine, tenants: tenants, purchases: $0, log: logger) },
            webhooks: deliverer.map {
                WebhookDispatcher(engine: engine, tenants: tenants, deliverer: $0, settings: webhooks, log: logger)
            },
            appStoreReconciler: reconciler, retention: RetentionJob(engine: engine, tenants: tenants, log: logger))
        let playNotifications: PlayStoreNotifications? =
            if let outbound, let playStore {
                PlayStoreNotifications(
                    engine: engine, tenants: tenants, purchases: playStore,
                    pushTokens: PushTokenVerifiers(tenants: tenants, http: outbound, now: engine.now), acknowledger: acknowledger, log: logger)
            } else {
                nil
            }
        let stripeWebhooks = StripeWebhooks(
            engine: engine, tenants: tenants, apis: StripeAPIs(tenants: tenants, http: outbound), log: logger)
        let health = HealthService()
        var router = RPCRouter()
        router.register(
            [
                health,
                EntitlementService(
                    engine: engine, tenants: tenants, log: callLog, streams: streamLimits, appStore: appStore,
                    appStoreAPIs: appStoreAPIs,
                    playStore: playStore, acknowledger: acknowledger, trustedProxies: trustedProxies,
                    grpcWebHeartbeatInterval: limits.grpcWebHeartbeatInterval, metrics: serviceMetrics, http: outbound),
                AdminService(
                    engine: engine, tenants: tenants, log: callLog, playStore: playStore, acknowledger: acknowledger,
                    webhooks: deliverer, appStoreReconciler: reconciler,
                    appStoreSupport: outbound.map { _ in
                        AppStoreSupport(engine: engine, purchases: appStore, apis: appStoreAPIs)
                    }, metrics: serviceMetrics),
            ] + extraServices)
        // Reflection lists what the router serves, so it goes last.
        ReflectionService(serviceNames: router.serviceNames).register(on: &router)
        health.reportServing(servicesOf: router)
        self.health = health
        self.router = router

        let metrics = MetricsRegistry()
        metrics.add(ProcessMetrics())
        metrics.add(serviceMetrics.sources)
        metrics.add(SnapshotReadMetrics(customers: engine.customers))
        if let outbound { metrics.add(outbound.metrics.sources) }
        if let database = repository as? SQLRepository { metrics.add(database.metricsSources) }
        metrics.add(StorageGauges(repository: repository, tenants: tenants, now: engine.now))
        self.metrics = metrics
        @Sendable func answered(_ source: ServiceMetrics.NotificationSource, _ reply: NotificationReply) -> HTTPResponse {
            serviceMetrics.notificationAnswered(source, reply, now: engine.now())
            return .text(reply.status, reply.message + "\n")
        }

        httpRouter = HTTPRouter { routes in
            if servesMetrics {
                routes.register("GET", "/metrics") { request in
                    request.isFromLoopback
                        ? Self.metricsResponse(metrics)
                        : .text(403, "/metrics answers only this machine; set [metrics] listen to serve it elsewhere\n")
                }
            }
            routes.register("GET", "/healthz") { _ in .text(200, "ok\n") }
            let readiness = ReadinessCheck(repository: repository, isDraining: isDraining)
            routes.register("GET", "/readyz") { _ in await readiness.respond() }
            routes.register("GET", "/.well-known/entitlementd/{tenant_id}/jwks.json") { request in
                Self.statusKeysResponse(tenants, tenantID: request.pathParameters["tenant_id"] ?? "")
            }
            routes.register("POST", "/v1/apple/notifications/{tenant_id}") { request in
                let reply = await notifications.receive(
                    tenantID: request.pathParameters["tenant_id"] ?? "", body: request.body)
                return answered(.appStore, reply)
            }
            routes.register("POST", "/v1/google/notifications/{tenant_id}") { request in
                guard let playNotifications else {
                    return .text(404, "This server takes no Google Play notifications.\n")
                }
                let reply = await playNotifications.receive(
                    tenantID: request.pathParameters["tenant_id"] ?? "", authorization: request.headers["authorization"],
                    body: request.body)
                return answered(.playStore, reply)
            }
            if let demoPage {
                routes.register("GET", "/demo/") { _ in demoPage.response(for: "") }
                routes.register("GET", "/demo/{file}") { request in demoPage.response(for: request.pathParameters["file"] ?? "") }
            }
            if let adminConsole {
                routes.register("GET", "/admin/") { _ in adminConsole.response(for: "") }
                routes.register("GET", "/admin/{file}") { request in
                    adminConsole.response(for: request.pathParameters["file"] ?? "")
                }
            }
            routes.register("POST", "/v1/stripe/webhooks/{tenant_id}") { request in
                let reply = await stripeWebhooks.receive(
                    tenantID: request.pathParameters["tenant_id"] ?? "", signature: request.headers["stripe-signature"],
                    body: request.body)
                return answered(.stripe, reply)
            }
        }
        metrics.add([httpRouter.requests, httpRouter.durations])
    }

    /// The keys a tenant signs status with, for apps to pin: public, so any page may read them; cached for an hour
    /// (a key is published long before it signs, see StatusSigningSettings).
    static func statusKeysResponse(_ tenants: TenantRegistry, tenantID: String) -> HTTPResponse {
        guard let keySet = tenants.statusKeySet(tenantID: tenantID) else {
            return .text(404, "No tenant \(tenantID.quotedForMessage) signs status here.\n")
        }
        var response = HTTPResponse(status: 200, body: keySet)
        response.headers.add(name: "content-type", value: "application/jwk-set+json")
        response.headers.add(name: "cache-control", value: "public, max-age=3600")
        response.headers.add(name: "access-control-allow-origin", value: "*")
        return response
    }

    /// A router with only `GET /metrics`, for a separate metrics listener (`[metrics] listen`).
    public static func metricsRouter(_ metrics: MetricsRegistry) -> HTTPRouter {
        HTTPRouter { routes in
            routes.register("GET", "/metrics") { _ in metricsResponse(metrics) }
        }
    }

    static func metricsResponse(_ metrics: MetricsRegistry) -> HTTPResponse {
        var response = HTTPResponse(status: 200, body: metrics.render())
        response.headers.add(name: "content-type", value: PrometheusText.contentType)
        return response
    }
}
