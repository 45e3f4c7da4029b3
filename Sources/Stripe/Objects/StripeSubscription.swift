public import Encodings

/// A Subscription (`sub_...`), the fields that decide access. Since API version 2025-03-31 the billing period lives on
/// each item (`items.data[].current_period_end`); older versions put it on the subscription: both are read, the
/// items' preferred.
public struct StripeSubscription: Sendable {
    public struct Item: Sendable {
        public struct Price: Sendable {
            public var id: String
            public var product: StripeID?
            /// In the currency's smallest unit (``StripeAmount``).
            public var unitAmount: Int64?
            public var currency: String?

            public init(id: String, product: StripeID?, unitAmount: Int64? = nil, currency: String? = nil) {
                self.id = id
                self.product = product
                self.unitAmount = unitAmount
                self.currency = currency
            }
        }

        public var id: String?
        public var price: Price?
        public var quantity: Int64?
        public var currentPeriodStart: Int64?
        public var currentPeriodEnd: Int64?
    }

    public struct Items: Sendable {
        public var data: [Item]
    }

    public var id: String
    public var status: OpenStatus
    public var customer: StripeID?
    public var items: Items?
    public var cancelAtPeriodEnd: Bool?
    public var cancelAt: Int64?
    public var canceledAt: Int64?
    public var endedAt: Int64?
    public var trialEnd: Int64?
    public var created: Int64?
    public var startDate: Int64?
    public var currentPeriodStart: Int64?
    public var currentPeriodEnd: Int64?
    public var metadata: [String: String]?
    public var latestInvoice: StripeID?
    public var livemode: Bool?

    /// `status`: one of Stripe's, or one added later (kept as written).
    public struct OpenStatus: Sendable, Hashable, JSONReadable {
        public var rawValue: String
        public var known: Status? { Status(rawValue: rawValue) }

        public init(_ status: Status) { rawValue = status.rawValue }

        public init(json reader: inout JSONReader) throws(JSONReadError) {
            rawValue = try reader.readString()
        }
    }

    public enum Status: String, Sendable, CaseIterable {
        case incomplete, trialing, active, canceled, unpaid, paused
        case incompleteExpired = "incomplete_expired"
        case pastDue = "past_due"
    }

    /// The end of the current period: the latest of the items', else the subscription's own (older API versions).
    public var periodEnd: Int64? {
        items?.data.compactMap(\.currentPeriodEnd).max() ?? currentPeriodEnd
    }

    /// The start of the current period: the latest of the items', else the subscription's own.
    public var periodStart: Int64? {
        items?.data.compactMap(\.currentPeriodStart).max() ?? currentPeriodStart
    }

    /// The price IDs of every item.
    public var priceIDs: [String] { items?.data.compactMap { $0.price?.id } ?? [] }
}

extension StripeSubscription: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "", status: OpenStatus(.active))
        try reader.readMembers(into: &self, [
            .required("id", \.id), .required("status", \.status), .optional("customer", \.customer),
            .optional("items", \.items), .optional("cancel_at_period_end", \.cancelAtPeriodEnd),
            .optional("cancel_at", \.cancelAt), .optional("canceled_at", \.canceledAt),
            .optional("ended_at", \.endedAt), .optional("trial_end", \.trialEnd), .optional("created", \.created),
            .optional("start_date", \.startDate), .optional("current_period_start", \.currentPeriodStart),
            .optional("current_period_end", \.currentPeriodEnd), .optional("metadata", \.metadata),
            .optional("latest_invoice", \.latestInvoice), .optional("livemode", \.livemode),
        ])
    }
}

extension StripeSubscription.Items: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(data: [])
        try reader.readMembers(into: &self, [.required("data", \.data)])
    }
}

extension StripeSubscription.Item: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("id", \.id), .optional("price", \.price), .optional("quantity", \.quantity),
            .optional("current_period_start", \.currentPeriodStart),
            .optional("current_period_end", \.currentPeriodEnd),
        ])
    }
}

extension StripeSubscription.Item.Price: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init(id: "", product: nil)
        try reader.readMembers(into: &self, [
            .required("id", \.id), .optional("product", \.product), .optional("unit_amount", \.unitAmount),
            .optional("currency", \.currency),
        ])
    }
}
