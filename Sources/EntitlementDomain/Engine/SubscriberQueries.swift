import BoundedText

/// A page of the tenant's customers. Pages follow customer IDs (creation order), so a token stays valid whatever
/// changes meanwhile: the next page starts after the last customer listed, never at an offset that shifts.
public struct CustomerPage: Sendable, Hashable {
    public static let defaultSize = 100
    public static let maximumSize = 1000

    public var customers: [ListedCustomerRecord]
    /// Empty on the last page.
    public var nextPageToken: String
}

/// The active-subscriber counts at the instant they were taken.
public struct SubscriberCountsNow: Sendable, Hashable {
    public var counts: SubscriberCounts
    public var countedAt: UnixTime
}

/// Subscriber queries: listing, counting and finding a tenant's customers. Read from the database (listings and
/// counts have no place in the cache) and never a write, so they need neither the engine's cache nor its write queue.
public final class SubscriberQueries: Sendable {
    let repository: any SubscriberQueryReads
    let clock: any DomainClock

    init(repository: any SubscriberQueryReads, clock: any DomainClock) {
        self.repository = repository
        self.clock = clock
    }

    /// One page of the customers matching `filter`; `pageToken` is the previous page's, asked with the same filter.
    /// Read from the database (listings and counts have no place in the cache).
    public func listCustomers(tenant: Tenant, filter: CustomerFilter, pageSize: Int, pageToken: String)
        throws(DomainError) -> CustomerPage
    {
        try filter.validate(for: tenant)
        guard (0...CustomerPage.maximumSize).contains(pageSize) else {
            throw .invalidRequest(
                "page_size must be 0 (the default, \(CustomerPage.defaultSize)) to \(CustomerPage.maximumSize); got \(pageSize).")
        }
        let limit = pageSize == 0 ? CustomerPage.defaultSize : pageSize
        let after = try CustomerPageToken.customerID(in: pageToken, tenantID: tenant.id, filter: filter)
        let query = CustomerListQuery(filter: filter, afterCustomerID: after, limit: limit + 1, now: clock.now())
        let records = try DomainError.reading { () throws(StorageError) in try repository.customers(tenantID: tenant.id, matching: query) }
        let page = Array(records.prefix(limit))
        let next =
            records.count > limit
            ? page.last.map { CustomerPageToken.make(after: $0.customerID, tenantID: tenant.id, filter: filter) } ?? ""
            : ""
        return CustomerPage(customers: page, nextPageToken: next)
    }

    /// The tenant's customers with an active entitlement now, in all and per entitlement, product and source.
    public func countCustomers(tenantID: String) throws(DomainError) -> SubscriberCountsNow {
        let now = clock.now()
        let counts = try DomainError.reading { () throws(StorageError) in try repository.subscriberCounts(tenantID: tenantID, at: now) }
        return SubscriberCountsNow(counts: counts, countedAt: now)
    }
}

extension CustomerFilter {
    static let maxProductIDBytes = 256

    /// INVALID_ARGUMENT for an entitlement the tenant does not declare (unless it allows undeclared ones), a product
    /// ID no product could have, or conditions that cannot hold together.
    func validate(for tenant: Tenant) throws(DomainError) {
        if let entitlementID { _ = try tenant.validateGrantable(entitlementID: entitlementID) }
        if let productID {
            guard productID.utf8.count <= Self.maxProductIDBytes, (try? Tenant.checkProductID(productID)) != nil else {
                throw .invalidRequest(
                    "product_id \(productID.quotedForMessage) is not a product ID: 1 to \(Self.maxProductIDBytes) bytes, "
                        + "no control characters, no leading or trailing whitespace.")
            }
        }
        if state == .inactive, entitlementID != nil || source != nil || productID != nil {
            throw .invalidRequest(
                "state INACTIVE lists customers holding nothing; it cannot be combined with entitlement_id, store or product_id.")
        }
    }
}
