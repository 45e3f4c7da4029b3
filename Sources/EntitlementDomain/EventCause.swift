/// What caused a customer event. Storage and the API map it to their own numbers explicitly; a test pins them.
public enum EventCause: Sendable, Hashable, CaseIterable {
    case created
    case merged
    case purchase
    case restore
    case transferredIn
    case transferredOut
    case appStoreNotification
    case playStoreNotification
    case grant
    case revoke
    case expiry
    /// The server asked the store's API (an operator's refresh, the voided-purchases poll, an acknowledgement that
    /// failed for good).
    case storeAPI
    /// A Stripe webhook event (a web checkout, a subscription's change, a refund or dispute).
    case stripeWebhook
    /// A redemption code attached a web purchase nobody owned.
    case redemption
    /// A support action with the store (an order looked up, a renewal date extended, consumption information sent).
    case support
    /// The app or the tenant's backend set or removed customer attributes.
    case attributes
    /// The server signed an offer for the customer (SignOffer): recorded, counted by the offer's limit; status is
    /// unchanged.
    case offerSigned
}

/// Whether a change touched the set of active entitlements.
public enum StatusChange: Sendable, Hashable, CaseIterable {
    /// The set of active entitlement IDs changed (something was gained or lost).
    case statusChanged
    /// The set is the same, but details changed: an expiry date, will_renew, grace or billing-retry state, a product.
    case customerInfoChanged
}
