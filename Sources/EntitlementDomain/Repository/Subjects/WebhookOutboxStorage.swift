/// The webhook outbox: deliveries waiting, leased, attempted; endpoints a 410 turned off.
public protocol WebhookOutboxReads: Sendable {
    /// When the soonest pending delivery not leased at `time` (to an attempt in progress) is due; nil when none is.
    func nextWebhookAttemptAt(at time: UnixTime) throws(StorageError) -> UnixTime?
    /// Pending deliveries, every tenant's: how many, and when the oldest was created (for the outbox metrics).
    func webhookBacklog() throws(StorageError) -> (pending: Int64, oldestCreatedAt: UnixTime?)
    /// Deliveries matching `filter`, newest first.
    func webhookDeliveries(_ filter: WebhookDeliveryFilter, limit: Int) throws(StorageError) -> [WebhookDelivery]
    /// The endpoints a 410 turned off, every tenant's.
    func disabledWebhookEndpoints() throws(StorageError) -> [DisabledWebhookEndpoint]
}

/// The webhook outbox inside a write transaction.
public protocol WebhookOutboxStorage {
    /// Stores a new delivery and returns its ID.
    func insertWebhookDelivery(_ delivery: WebhookDelivery) throws(StorageError) -> Int64
    /// Deletes one delivery (a message that must not outlive its sending).
    func deleteWebhookDelivery(tenantID: String, id: Int64) throws(StorageError)
    /// Deletes the endpoint's deliveries of `type` that are no longer pending.
    func deleteFinishedWebhookDeliveries(tenantID: String, endpointID: String, type: String) throws(StorageError)
    /// Pending deliveries due at `time` and not leased, soonest first, each the oldest pending one of its customer
    /// to its endpoint (a later event waits for an earlier one), leaving out `excludedEndpoints`' deliveries. On a
    /// shared database the rows stay locked until the transaction ends, and rows another instance is claiming are
    /// passed over, so each delivery is claimed by one instance.
    func dueWebhookDeliveries(at time: UnixTime, limit: Int, excludedEndpoints: [WebhookEndpointKey])
        throws(StorageError) -> [WebhookDelivery]
    /// Leases deliveries to attempts starting now: not due again before `until` unless their attempt is recorded.
    func leaseWebhookDeliveries(ids: [Int64], until: UnixTime) throws(StorageError)
    /// Ends every lease (a restart: the attempts they stood for are gone) where this instance is the only one;
    /// on a shared database leases run out on their own.
    func releaseWebhookLeases() throws(StorageError)
    /// Writes an attempt's result and ends the delivery's lease; counts the attempt unless `countsAttempt` is false.
    /// Returns false (and changes nothing) when the delivery is no longer pending: redelivered, failed, or deleted
    /// meanwhile (its customer erased).
    @discardableResult
    func saveWebhookAttempt(_ attempt: WebhookAttemptRecord, countsAttempt: Bool) throws(StorageError) -> Bool
    /// Marks every pending delivery to the endpoint failed with `error`; returns how many.
    func failPendingWebhookDeliveries(tenantID: String, endpointID: String, error: String, at: UnixTime)
        throws(StorageError) -> Int
    /// Makes the deliveries matching `filter` pending again, due at `at`, their attempts counted from zero; returns
    /// how many, and their endpoints. Notices are never matched.
    func requeueWebhookDeliveries(_ filter: WebhookDeliveryFilter, at: UnixTime) throws(StorageError)
        -> (count: Int, endpointIDs: Set<String>)
    /// Returns false (and changes nothing) when the endpoint was disabled already.
    func disableWebhookEndpoint(_ endpoint: DisabledWebhookEndpoint) throws(StorageError) -> Bool
    func enableWebhookEndpoint(tenantID: String, endpointID: String) throws(StorageError)
}
