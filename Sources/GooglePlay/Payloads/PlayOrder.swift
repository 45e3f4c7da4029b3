public import Encodings

/// `orders.get`'s answer, the fields this service reads: what Google charged for one order (a purchase, or one
/// renewal of a subscription), the tax in it, what the developer gets, and its refunds. Times are RFC 3339 strings.
public struct PlayOrder: Sendable, Hashable {
    public struct BuyerAddress: Sendable, Hashable {
        /// ISO 3166-1 alpha-2.
        public var buyerCountry: String?
    }

    public struct LineItem: Sendable, Hashable {
        public struct SubscriptionDetails: Sendable, Hashable {
            public var basePlanId: String?
            public var offerId: String?
            public var offerPhaseDetails: OfferPhase?
            /// The period this order paid for, as it was when Google processed the order.
            public var servicePeriodStartTime: String?
            public var servicePeriodEndTime: String?
        }

        public var productId: String?
        public var total: GoogleMoney?
        public var tax: GoogleMoney?
        public var subscriptionDetails: SubscriptionDetails?
    }

    public struct RefundDetails: Sendable, Hashable {
        /// Tax included.
        public var total: GoogleMoney?
        public var tax: GoogleMoney?
    }

    public struct RefundEvent: Sendable, Hashable {
        public var eventTime: String?
        public var refundDetails: RefundDetails?
    }

    public struct PartialRefundEvent: Sendable, Hashable {
        public var createTime: String?
        public var processTime: String?
        public var refundDetails: RefundDetails?
    }

    public struct OrderHistory: Sendable, Hashable {
        /// Present once the order is refunded in full.
        public var refundEvent: RefundEvent?
        public var partialRefundEvents: [PartialRefundEvent]?
    }

    public var orderId: String?
    public var purchaseToken: String?
    /// `PENDING`, `PROCESSED`, `CANCELED`, `PENDING_REFUND`, `PARTIALLY_REFUNDED`, `REFUNDED`.
    public var state: String?
    public var createTime: String?
    public var buyerAddress: BuyerAddress?
    /// What the buyer paid, tax included.
    public var total: GoogleMoney?
    public var tax: GoogleMoney?
    /// The developer's revenue in the buyer's currency: Google's fee and the taxes it remits deducted, partial
    /// refunds too.
    public var developerRevenueInBuyerCurrency: GoogleMoney?
    public var lineItems: [LineItem]?
    public var orderHistory: OrderHistory?

    /// What Google gave back: the full refund's total, else the partial refunds' together; nil when nothing was, or
    /// an amount does not add up.
    public var refundedMilliunits: Int64? {
        if let full = orderHistory?.refundEvent?.refundDetails?.total?.milliunits { return full }
        var sum: Int64 = 0
        for event in orderHistory?.partialRefundEvents ?? [] {
            guard let amount = event.refundDetails?.total?.milliunits else { return nil }
            let (total, overflow) = sum.addingReportingOverflow(amount)
            guard !overflow else { return nil }
            sum = total
        }
        return sum == 0 ? nil : sum
    }
}

extension PlayOrder: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("orderId", \.orderId), .optional("purchaseToken", \.purchaseToken), .optional("state", \.state),
            .optional("createTime", \.createTime), .optional("buyerAddress", \.buyerAddress),
            .optional("total", \.total), .optional("tax", \.tax),
            .optional("developerRevenueInBuyerCurrency", \.developerRevenueInBuyerCurrency),
            .optional("lineItems", \.lineItems), .optional("orderHistory", \.orderHistory),
        ])
    }
}

extension PlayOrder.BuyerAddress: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("buyerCountry", \.buyerCountry)])
    }
}

extension PlayOrder.LineItem: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("productId", \.productId), .optional("total", \.total), .optional("tax", \.tax),
            .optional("subscriptionDetails", \.subscriptionDetails),
        ])
    }
}

extension PlayOrder.LineItem.SubscriptionDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("basePlanId", \.basePlanId), .optional("offerId", \.offerId),
            .optional("offerPhaseDetails", \.offerPhaseDetails),
            .optional("servicePeriodStartTime", \.servicePeriodStartTime),
            .optional("servicePeriodEndTime", \.servicePeriodEndTime),
        ])
    }
}

extension PlayOrder.RefundDetails: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [.optional("total", \.total), .optional("tax", \.tax)])
    }
}

extension PlayOrder.RefundEvent: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("eventTime", \.eventTime), .optional("refundDetails", \.refundDetails),
        ])
    }
}

extension PlayOrder.PartialRefundEvent: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("createTime", \.createTime), .optional("processTime", \.processTime),
            .optional("refundDetails", \.refundDetails),
        ])
    }
}

extension PlayOrder.OrderHistory: JSONReadable {
    public init(json reader: inout JSONReader) throws(JSONReadError) {
        self.init()
        try reader.readMembers(into: &self, [
            .optional("refundEvent", \.refundEvent), .optional("partialRefundEvents", \.partialRefundEvents),
        ])
    }
}
