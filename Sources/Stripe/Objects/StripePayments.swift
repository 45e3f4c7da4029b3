/// A Checkout Session (`cs_...`): how a web purchase names its buyer (`client_reference_id`, `metadata`) and what it
/// created (`subscription`, or a one-time `payment_intent`).
public struct StripeCheckoutSession: Decodable, Sendable {
    public struct LineItem: Decodable, Sendable {
        public var price: StripeSubscription.Item.Price?
    }

    public struct LineItems: Decodable, Sendable {
        public var data: [LineItem]
    }

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
    /// The first invoice of a subscription (or of a one-time payment with invoicing on).
    public var invoice: StripeID?
    /// What was bought: only when the request expanded `line_items` (webhooks never carry them).
    public var lineItems: LineItems?
    /// What the buyer paid, in the currency's smallest unit (``StripeAmount``).
    public var amountTotal: Int64?
    public var currency: String?
    public var created: Int64?
    public var livemode: Bool?

    enum CodingKeys: String, CodingKey {
        case id, mode, status, metadata, customer, subscription, invoice, created, livemode, currency
        case amountTotal = "amount_total"
        case paymentStatus = "payment_status"
        case clientReferenceID = "client_reference_id"
        case paymentIntent = "payment_intent"
        case lineItems = "line_items"
    }
}

/// An Invoice (`in_...`): a subscription's renewal paid or failed. The subscription is under
/// `parent.subscription_details` since API version 2025-03-31, directly on the invoice before: both are read; so is
/// the payment intent that paid it (`payments.data[].payment.payment_intent` since then, `payment_intent` before), which
/// is how a later refund or dispute of its charge finds the subscription.
public struct StripeInvoice: Decodable, Sendable {
    public struct Line: Decodable, Sendable {
        public struct Period: Decodable, Sendable {
            public var start: Int64?
            public var end: Int64?
        }

        public var period: Period?
    }

    public struct Lines: Decodable, Sendable {
        public var data: [Line]
    }

    public struct Payment: Decodable, Sendable {
        public struct Target: Decodable, Sendable {
            public var paymentIntent: StripeID?

            enum CodingKeys: String, CodingKey { case paymentIntent = "payment_intent" }
        }

        public var payment: Target?
    }

    public struct Payments: Decodable, Sendable {
        public var data: [Payment]
    }

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
    public var lines: Lines?
    public var payments: Payments?
    /// Older API versions.
    public var legacyPaymentIntent: StripeID?
    public var created: Int64?
    public var livemode: Bool?

    enum CodingKeys: String, CodingKey {
        case id, status, customer, parent, created, lines, payments, livemode
        case billingReason = "billing_reason"
        case legacySubscription = "subscription"
        case legacyPaymentIntent = "payment_intent"
        case attemptCount = "attempt_count"
        case nextPaymentAttempt = "next_payment_attempt"
    }

    public var subscriptionID: String? { parent?.subscriptionDetails?.subscription?.id ?? legacySubscription?.id }

    /// The end of the latest period its lines bill for.
    public var periodEnd: Int64? { lines?.data.compactMap { $0.period?.end }.max() }

    /// Every payment intent that paid it.
    public var paymentIntentIDs: [String] {
        var ids = payments?.data.compactMap { $0.payment?.paymentIntent?.id } ?? []
        if let legacy = legacyPaymentIntent?.id, !ids.contains(legacy) { ids.append(legacy) }
        return ids
    }
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
    /// Older API versions only.
    public var invoice: StripeID?
    public var created: Int64?
    public var livemode: Bool?

    enum CodingKeys: String, CodingKey {
        case id, amount, refunded, customer, invoice, created, livemode
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
    public var livemode: Bool?

    enum CodingKeys: String, CodingKey {
        case id, charge, amount, reason, status, created, livemode
        case paymentIntent = "payment_intent"
    }
}
