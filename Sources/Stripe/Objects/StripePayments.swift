/// A Checkout Session (`cs_...`): how a web purchase names its buyer (`client_reference_id`, `metadata`) and what it
/// created (`subscription`, or a one-time `payment_intent`).
public struct StripeCheckoutSession: Decodable, Sendable {
    public var id: String
    /// `payment`, `subscription` or `setup`.
    public var mode: String?
    /// `paid`, `unpaid` (a delayed payment method: wait for `async_payment_succeeded`) or `no_payment_required`.
    public var paymentStatus: String?
    public var status: String?
    public var clientReferenceID: String?
    public var metadata: [String: String]?
    public var customer: StripeID?
    public var subscription: StripeID?
    public var paymentIntent: StripeID?
    public var created: Int64?
    public var livemode: Bool?

    enum CodingKeys: String, CodingKey {
        case id, mode, status, metadata, customer, subscription, created, livemode
        case paymentStatus = "payment_status"
        case clientReferenceID = "client_reference_id"
        case paymentIntent = "payment_intent"
    }
}

/// An Invoice (`in_...`): a subscription's renewal paid or failed. The subscription is under
/// `parent.subscription_details` since API version 2025-03-31, directly on the invoice before: both are read.
public struct StripeInvoice: Decodable, Sendable {
    public struct Parent: Decodable, Sendable {
        public struct SubscriptionDetails: Decodable, Sendable {
            public var subscription: StripeID?
        }

        public var subscriptionDetails: SubscriptionDetails?

        enum CodingKeys: String, CodingKey { case subscriptionDetails = "subscription_details" }
    }

    public var id: String
    public var status: String?
    public var billingReason: String?
    public var customer: StripeID?
    public var parent: Parent?
    /// Older API versions.
    public var legacySubscription: StripeID?
    public var attemptCount: Int?
    public var nextPaymentAttempt: Int64?
    public var created: Int64?

    enum CodingKeys: String, CodingKey {
        case id, status, customer, parent, created
        case billingReason = "billing_reason"
        case legacySubscription = "subscription"
        case attemptCount = "attempt_count"
        case nextPaymentAttempt = "next_payment_attempt"
    }

    public var subscriptionID: String? { parent?.subscriptionDetails?.subscription?.id ?? legacySubscription?.id }
}

/// A Charge (`ch_...`): refunded wholly or in part.
public struct StripeCharge: Decodable, Sendable {
    public var id: String
    public var amount: Int64?
    public var amountRefunded: Int64?
    /// True once the whole amount is refunded.
    public var refunded: Bool?
    public var paymentIntent: StripeID?
    public var customer: StripeID?
    public var created: Int64?

    enum CodingKeys: String, CodingKey {
        case id, amount, refunded, customer, created
        case amountRefunded = "amount_refunded"
        case paymentIntent = "payment_intent"
    }
}

/// A Dispute (`dp_...`): a chargeback on a charge.
public struct StripeDispute: Decodable, Sendable {
    public var id: String
    public var charge: StripeID?
    public var paymentIntent: StripeID?
    public var amount: Int64?
    public var reason: String?
    /// `warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, ...
    public var status: String?
    public var created: Int64?

    enum CodingKeys: String, CodingKey {
        case id, charge, amount, reason, status, created
        case paymentIntent = "payment_intent"
    }
}
