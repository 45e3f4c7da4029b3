/// What ``CustomerRepository/customers(tenantID:matching:)`` selects. Entitlement conditions (`entitlementID`,
/// `source`, `productID`, and the grace or billing-retry states) name one active entitlement that meets all of them.
public struct CustomerFilter: Sendable, Hashable {
    /// Customers by what they hold now.
    public enum State: Sendable, Hashable, CaseIterable {
        case any
        case active
        case inactive
        case gracePeriod
        case billingRetry
    }

    public var entitlementID: String?
    public var source: EntitlementSource?
    public var productID: String?
    public var state: State
    /// Only customers whose last event was recorded at or after this time.
    public var changedSince: UnixTime?

    public init(
        entitlementID: String? = nil, source: EntitlementSource? = nil, productID: String? = nil,
        state: State = .any, changedSince: UnixTime? = nil
    ) {
        self.entitlementID = entitlementID
        self.source = source
        self.productID = productID
        self.state = state
        self.changedSince = changedSince
    }

    /// Whether an active entitlement must meet a condition (the state alone may ask for none).
    public var needsEntitlement: Bool {
        entitlementID != nil || source != nil || productID != nil || state == .active || state == .gracePeriod
            || state == .billingRetry
    }
}

/// One page of a customer listing as storage reads it: customers after `afterCustomerID` in ID order.
public struct CustomerListQuery: Sendable, Hashable {
    public var filter: CustomerFilter
    /// The last customer of the previous page; nil for the first page.
    public var afterCustomerID: Int64?
    public var limit: Int
    /// The instant "active" is judged at: an entitlement is active while it has no expiry or expires after it.
    public var now: UnixTime

    public init(filter: CustomerFilter, afterCustomerID: Int64?, limit: Int, now: UnixTime) {
        self.filter = filter
        self.afterCustomerID = afterCustomerID
        self.limit = limit
        self.now = now
    }
}

/// A listed customer: who, when created and last changed, and the entitlements it holds at the query's instant.
public struct ListedCustomerRecord: Sendable, Hashable {
    public var customerID: Int64
    public var appUserID: String
    public var version: UInt64
    public var createdAt: UnixTime
    public var changedAt: UnixTime
    /// Sorted by entitlement ID.
    public var entitlements: [ActiveEntitlementValue]

    public init(
        customerID: Int64, appUserID: String, version: UInt64, createdAt: UnixTime, changedAt: UnixTime,
        entitlements: [ActiveEntitlementValue]
    ) {
        self.customerID = customerID
        self.appUserID = appUserID
        self.version = version
        self.createdAt = createdAt
        self.changedAt = changedAt
        self.entitlements = entitlements
    }
}

/// Distinct customers with an active entitlement at one instant, in all and per entitlement, product and source.
/// Groups nobody is in are absent.
public struct SubscriberCounts: Sendable, Hashable {
    public var activeCustomers: Int64
    public var perEntitlement: [String: Int64]
    /// Grants (no product) are left out.
    public var perProduct: [String: Int64]
    public var perSource: [EntitlementSource: Int64]

    public init(
        activeCustomers: Int64, perEntitlement: [String: Int64], perProduct: [String: Int64],
        perSource: [EntitlementSource: Int64]
    ) {
        self.activeCustomers = activeCustomers
        self.perEntitlement = perEntitlement
        self.perProduct = perProduct
        self.perSource = perSource
    }
}
