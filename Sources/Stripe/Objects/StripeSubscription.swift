/// A Subscription (`sub_...`), the fields that decide access. Since API version 2025-03-31 the billing period lives on
/// each item (`items.data[].current_period_end`); older versions put it on the subscription: both are read, the
/// items' preferred.
public struct StripeSubscription: Decodable, Sendable {
    public struct Item: Decodable, Sendable {
        public struct Price: Decodable, Sendable {
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

            enum CodingKeys: String, CodingKey {
                case id, product, currency
                case unitAmount = "unit_amount"
            }
        }

        public var id: String?
        public var price: Price?
        public var quantity: Int64?
        public var currentPeriodStart: Int64?
        public var currentPeriodEnd: Int64?

        enum CodingKeys: String, CodingKey {
            case id, price, quantity
            case currentPeriodStart = "current_period_start"
            case currentPeriodEnd = "current_period_end"
        }
    }

    public struct Items: Decodable, Sendable {
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

    enum CodingKeys: String, CodingKey {
        case id, status, customer, items, created, metadata, livemode
        case latestInvoice = "latest_invoice"
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case cancelAt = "cancel_at"
        case canceledAt = "canceled_at"
        case endedAt = "ended_at"
        case trialEnd = "trial_end"
        case startDate = "start_date"
        case currentPeriodStart = "current_period_start"
        case currentPeriodEnd = "current_period_end"
    }

    /// `status`: one of Stripe's, or one added later (kept as written).
    public struct OpenStatus: Decodable, Sendable, Hashable {
        public var rawValue: String
        public var known: Status? { Status(rawValue: rawValue) }

        public init(_ status: Status) { rawValue = status.rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
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
