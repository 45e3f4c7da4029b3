/// Subscriber queries: finding, listing and counting a tenant's customers.
public protocol SubscriberQueryReads: Sendable {
    /// What `id` names in the tenant (``CustomerMatch``): app user IDs and aliases, then customers whose `$email`
    /// folds (``CustomerAttribute/fold(_:)``) to `id`'s fold, then purchases by original transaction ID, by latest
    /// transaction ID and by store reference; at most `limit`.
    func customerMatches(tenantID: String, id: String, limit: Int) throws(StorageError) -> [CustomerMatch]
    /// One page of the tenant's customers matching `query.filter`, in customer ID order (merged-away husks left out).
    func customers(tenantID: String, matching query: CustomerListQuery) throws(StorageError) -> [ListedCustomerRecord]
    /// Distinct customers with an entitlement active at `time`, counted by the database from its indexes.
    func subscriberCounts(tenantID: String, at time: UnixTime) throws(StorageError) -> SubscriberCounts
}
