public import Encodings

/// A Checkout Session (`cs_...`): how a web purchase names its buyer (`client_reference_id`, `metadata`) and what it
/// created (`subscription`, or a one-time `payment_intent`).
public struct StripeCheckoutSession: Sendable {
    public struct LineItem: Sendable {
        public var price: StripeSubscription.Item.Price?
    }

    public struct LineItems: Sendable {
        public var data: [LineItem]
    }

    public struct TotalDetails: Sendable {
        public var amountTax: Int64?
        public var amountDiscount: Int64?
    }

    public struct CustomerDetails: Sendable {
        public var address: StripeAddress?
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
    /// The tax and discount within `amountTotal`.
    public var totalDetails: TotalDetails?
    /// The buyer's billing details as Checkout collected them.
    public var customerDetails: CustomerDetails?
    public var created: Int64?
    public var livemode: Bool?
}

/// An address: only its country (ISO 3166-1 alpha-2) is read.
public struct StripeAddress: Sendable {
    public var country: String?
}

/// An Invoice (`in_...`): a subscription's renewal paid or failed. The subscription is under
/// `parent.subscription_details` since API version 2025-03-31, directly on the invoice before: both are read; so is
/// the payment intent that paid it (`payments.data[].payment.payment_intent` since then, `payment_intent` before), which
/// is how a later refund or dispute of its charge finds the subscription.
public struct StripeInvoice: Sendable {
    public struct Line: Sendable {
        public struct Period: Sendable {
            public var start: Int64?
            public var end: Int64?
        }

        public var period: Period?
    }

    public struct Lines: Sendable {
        public var data: [Line]
    }

    public struct Payment: Sendable {
        public struct Target: Sendable {
            public var paymentIntent: StripeID?
        }

        public var payment: Target?
    }

    public struct Payments: Sendable {
        public var data: [Payment]
    }

    public struct Parent: Sendable {
        public struct SubscriptionDetails: Sendable {
            public var subscription: StripeID?
        }

        public var subscriptionDetails: SubscriptionDetails?
    }

    /// One tax the invoice charged (`total_taxes[]` since API version 2025-03-31).
    public struct Tax: Sendable {
        public var amount: Int64?
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
    /// What the buyer paid, tax included, in the currency's smallest unit (``StripeAmount``).
    public var amountPaid: Int64?
    public var currency: String?
    public var totalTaxes: [Tax]?
    /// The tax within the total, before API version 2025-03-31.
    public var legacyTax: Int64?
    /// The buyer's address, when the account collects it.
    public var customerAddress: StripeAddress?
    /// Coupons and promotion codes applied (IDs, or objects when expanded): read for whether there are any.
    public var discounts: [JSONValue]?
    public var created: Int64?
    public var livemode: Bool?

    public var subscriptionID: String? { parent?.subscriptionDetails?.subscription?.id ?? legacySubscription?.id }

    /// The end of the latest period its lines bill for.
    public var periodEnd: Int64? { lines?.data.compactMap { $0.period?.end }.max() }

    /// The start of the earliest period its lines bill for.
    public var periodStart: Int64? { lines?.data.compactMap { $0.period?.start }.min() }

    /// The tax within the total: `total_taxes` summed, else the older `tax`; nil when neither says, or it does not fit.
    public var tax: Int64? {
        guard let totalTaxes else { return legacyTax }
        var sum: Int64 = 0
        for tax in totalTaxes {
            let (total, overflow) = sum.addingReportingOverflow(tax.amount ?? 0)
            guard !overflow else { return nil }
            sum = total
        }
        return sum
    }

    /// Every payment intent that paid it.
    public var paymentIntentIDs: [String] {
        var ids = payments?.data.compactMap { $0.payment?.paymentIntent?.id } ?? []
        if let legacy = legacyPaymentIntent?.id, !ids.contains(legacy) { ids.append(legacy) }
        return ids
    }
}

/// A Charge (`ch_...`): refunded wholly or in part.
public struct StripeCharge: Sendable {
    public var id: String
    public var amount: Int64?
    public var amountRefunded: Int64?
    public var currency: String?
    /// True once the whole amount is refunded.
    public var refunded: Bool?
    public var paymentIntent: StripeID?
    public var customer: StripeID?
    /// Older API versions only.
    public var invoice: StripeID?
    public var created: Int64?
    public var livemode: Bool?
}

/// A Dispute (`dp_...`): a chargeback on a charge.
public struct StripeDispute: Sendable {
    public var id: String
    public var charge: StripeID?
    public var paymentIntent: StripeID?
    /// What the buyer's bank takes back, in `currency`'s smallest unit.
    public var amount: Int64?
    public var currency: String?
    public var reason: String?
    /// `warning_needs_response`, `needs_response`, `under_review`, `won`, `lost`, ...
    public var status: String?
    public var created: Int64?
    public var livemode: Bool?
}

extension StripeCheckoutSession: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "")
        try reader.readMembers(into: &self, [
            .required("id", \.id), .optional("mode", \.mode), .optional("payment_status", \.paymentStatus),
            .optional("status", \.status), .optional("client_reference_id", \.clientReferenceID),
            .optional("metadata", \.metadata), .optional("customer", \.customer),
            .optional("subscription", \.subscription), .optional("payment_intent", \.paymentIntent),
            .optional("invoice", \.invoice), .optional("line_items", \.lineItems),
            .optional("amount_total", \.amountTotal), .optional("currency", \.currency),
            .optional("total_details", \.totalDetails), .optional("customer_details", \.customerDetails),
            .optional("created", \.created), .optional("livemode", \.livemode),
        ])
    }
}

extension StripeCheckoutSession.TotalDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("amount_tax", \.amountTax), .optional("amount_discount", \.amountDiscount),
        ])
    }
}

extension StripeCheckoutSession.CustomerDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("address", \.address)])
    }
}

extension StripeAddress: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("country", \.country)])
    }
}

extension StripeInvoice.Tax: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("amount", \.amount)])
    }
}

extension StripeCheckoutSession.LineItems: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(data: [])
        try reader.readMembers(into: &self, [.required("data", \.data)])
    }
}

extension StripeCheckoutSession.LineItem: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("price", \.price)])
    }
}

extension StripeInvoice: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "")
        try reader.readMembers(into: &self, [
            .required("id", \.id), .optional("status", \.status), .optional("billing_reason", \.billingReason),
            .optional("customer", \.customer), .optional("parent", \.parent),
            .optional("subscription", \.legacySubscription), .optional("attempt_count", \.attemptCount),
            .optional("next_payment_attempt", \.nextPaymentAttempt), .optional("lines", \.lines),
            .optional("payments", \.payments), .optional("payment_intent", \.legacyPaymentIntent),
            .optional("amount_paid", \.amountPaid), .optional("currency", \.currency),
            .optional("total_taxes", \.totalTaxes), .optional("tax", \.legacyTax),
            .optional("customer_address", \.customerAddress), .optional("discounts", \.discounts),
            .optional("created", \.created),
            .optional("livemode", \.livemode),
        ])
    }
}

extension StripeInvoice.Lines: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(data: [])
        try reader.readMembers(into: &self, [.required("data", \.data)])
    }
}

extension StripeInvoice.Line: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("period", \.period)])
    }
}

extension StripeInvoice.Line.Period: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("start", \.start), .optional("end", \.end)])
    }
}

extension StripeInvoice.Payments: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(data: [])
        try reader.readMembers(into: &self, [.required("data", \.data)])
    }
}

extension StripeInvoice.Payment: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("payment", \.payment)])
    }
}

extension StripeInvoice.Payment.Target: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("payment_intent", \.paymentIntent)])
    }
}

extension StripeInvoice.Parent: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("subscription_details", \.subscriptionDetails)])
    }
}

extension StripeInvoice.Parent.SubscriptionDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("subscription", \.subscription)])
    }
}

extension StripeCharge: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "")
        try reader.readMembers(into: &self, [
            .required("id", \.id), .optional("amount", \.amount), .optional("amount_refunded", \.amountRefunded),
            .optional("refunded", \.refunded), .optional("payment_intent", \.paymentIntent),
            .optional("currency", \.currency),
            .optional("customer", \.customer), .optional("invoice", \.invoice), .optional("created", \.created),
            .optional("livemode", \.livemode),
        ])
    }
}

extension StripeDispute: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "")
        try reader.readMembers(into: &self, [
            .required("id", \.id), .optional("charge", \.charge), .optional("payment_intent", \.paymentIntent),
            .optional("amount", \.amount), .optional("currency", \.currency), .optional("reason", \.reason),
            .optional("status", \.status),
            .optional("created", \.created), .optional("livemode", \.livemode),
        ])
    }
}
