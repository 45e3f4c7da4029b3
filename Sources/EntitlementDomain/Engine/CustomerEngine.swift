/// The customer model, one subject at a time: each reads through the repository protocols of its subject and writes
/// through one shared core (``EngineCore``): one transaction per write on the write queue, one event per changed
/// customer, the cache and the open streams told after every commit. Reads never create anything.
public final class CustomerEngine: Sendable {
    let core: EngineCore
    /// Status and identity: state, history, Identify.
    public let customers: Customers
    /// Store purchases: Purchase and Restore, store notifications, redemption codes.
    public let purchases: StorePurchases
    /// Grants by secret key.
    public let grants: Grants
    /// Customer attributes, by the app and the backend.
    public let attributes: Attributes
    /// App Store offers: eligibility, and each signature recorded.
    public let offers: Offers
    /// A customer's personal data as a whole: export, and the tenant's audit log.
    public let privacy: CustomerPrivacy
    /// Acknowledging purchases to their store.
    public let acknowledgements: StoreAcknowledgements
    /// Support actions with a store, audited on their customer.
    public let supportActions: SupportActions
    /// The webhook outbox: the dispatcher's side and the operators'.
    public let outbox: WebhookOutbox
    /// Listing, counting and finding the tenant's customers.
    public let subscriberQueries: SubscriberQueries
    /// Revenue and subscription metrics from the revenue ledger.
    public let revenueMetrics: RevenueMetrics
    /// Names this instance in logs.
    public let instanceID: String

    public init(
        repository: any CustomerRepository, clock: any DomainClock = SystemClock(), hub: StatusHub = StatusHub(),
        replayLimit: Int = 1000, maxWriteGroup: Int = WriteQueueDefaults.maximumGroupSize, writeLanes: Int = 1,
        snapshotReads: SnapshotReadLimits = SnapshotReadLimits(),
        instanceID: String = CustomerEngine.defaultInstanceID(),
        webhookEndpoints: @escaping @Sendable (_ tenantID: String) -> [WebhookEndpoint] = { _ in [] },
        commissions: @escaping @Sendable (_ tenantID: String) -> Commissions = { _ in .defaults },
        observeChange: @escaping @Sendable (_ tenantID: String, _ update: StatusUpdate) -> Void = { _, _ in }
    ) {
        let core = EngineCore(
            repository: repository, clock: clock, hub: hub, maxWriteGroup: maxWriteGroup, writeLanes: writeLanes,
            webhookEndpoints: webhookEndpoints, commissions: commissions, observeChange: observeChange)
        self.core = core
        self.customers = Customers(
            core: core, repository: repository, replayLimit: replayLimit, snapshotReads: snapshotReads)
        self.purchases = StorePurchases(core: core, repository: repository)
        self.grants = Grants(core: core)
        self.attributes = Attributes(core: core)
        self.offers = Offers(core: core, repository: repository)
        self.privacy = CustomerPrivacy(core: core, repository: repository)
        self.acknowledgements = StoreAcknowledgements(core: core, repository: repository)
        self.supportActions = SupportActions(core: core, repository: repository)
        self.outbox = WebhookOutbox(core: core, repository: repository)
        self.subscriberQueries = SubscriberQueries(repository: repository, clock: clock)
        self.revenueMetrics = RevenueMetrics(repository: repository)
        self.instanceID = instanceID
    }

    /// The open streams' hub.
    public var hub: StatusHub { core.hub }

    /// The engine's clock reading, for `server_time` in responses.
    public func now() -> UnixTime { core.now() }
}
