import GooglePlay

/// The money side of a Google Play purchase. Google's order (`orders.get`) is the record of what it charged: the
/// total with its tax, the developer's revenue, the period paid for, the refunds. Without it (the call failed, or
/// the service account may not view financial data), a subscription's data states an amount exactly only for a
/// period at the base plan's price (its recurring price) and a free trial (nothing); any other period, and a one-time
/// product, then has no price, and the revenue ledger records no payment for it until a fetch with its order.
extension PlayStoreInterpretation {
    /// A subscription's current order. `order` is Google's record of it, used when it is that order.
    static func sale(
        of data: SubscriptionPurchaseV2, item: SubscriptionPurchaseV2.LineItem, orderID: String, order: PlayOrder?,
        learnedAt: UnixTime
    ) throws(DomainError) -> (sale: PurchaseSale, price: PurchasePrice?) {
        let order = order.flatMap { $0.orderId == orderID ? $0 : nil }
        let details = order?.lineItems?.first { $0.productId == item.productId }?.subscriptionDetails
        let phase = details?.offerPhaseDetails?.kind ?? item.offerPhase?.kind
        let offer: OfferKind =
            switch phase {
            case .freeTrial?: .freeTrial
            case .introductoryPrice?: .introductory
            case .basePrice?, .prorationPeriod?, nil: .none
            }
        // Renewal orders are the first order's ID followed by `..N`.
        let isRenewal = orderID.contains("..")
        var sale = PurchaseSale(
            kind: isRenewal ? .subscriptionRenewal : .subscriptionPurchase, offer: offer,
            offerID: offer == .none ? "" : item.offerDetails?.offerId ?? "",
            country: country(order: order, regionCode: data.regionCode))
        // The subscription's start date is its first order's; a renewal's period began about when we learn of it.
        sale.periodStart =
            try UnixTime.checked(
                milliseconds: GooglePlayTime.milliseconds(rfc3339: details?.servicePeriodStartTime),
                field: "subscriptionDetails.servicePeriodStartTime") ?? (isRenewal ? learnedAt : nil)
        if let order, let charged = try charged(by: order, into: &sale) { return (sale, charged) }
        let recurring = item.autoRenewingPlan?.recurringPrice
        guard let currency = recurring?.currencyCode, !currency.isEmpty else { return (sale, nil) }
        switch phase {
        case .freeTrial?: return (sale, PurchasePrice(milliunits: 0, currency: currency))
        case .basePrice?:
            guard let amount = recurring?.milliunits, amount >= 0 else {
                throw .malformedPayload("Google's lineItems[].autoRenewingPlan.recurringPrice is not an amount of money.")
            }
            return (sale, PurchasePrice(milliunits: amount, currency: currency))
        case .introductoryPrice?, .prorationPeriod?, nil: return (sale, nil)
        }
    }

    /// A one-time product's order; none while its payment is pending, or once Google canceled the order unpaid.
    static func sale(of data: ProductPurchase, order: PlayOrder?) throws(DomainError)
        -> (sale: PurchaseSale?, price: PurchasePrice?)
    {
        let order = order.flatMap { $0.orderId == data.orderId ? $0 : nil }
        guard data.state != .pending, data.orderId != nil, order?.state != "PENDING", order?.state != "CANCELED" else {
            return (nil, nil)
        }
        var sale = PurchaseSale(kind: .oneTime, offer: .none, country: country(order: order, regionCode: data.regionCode))
        guard let order else { return (sale, nil) }
        let price = try charged(by: order, into: &sale)
        return (sale, price)
    }

    /// The order's total as the price, and into `sale` its tax, the developer's revenue and what was refunded (each
    /// only in the total's currency); nil when the order states no total.
    private static func charged(by order: PlayOrder, into sale: inout PurchaseSale) throws(DomainError) -> PurchasePrice? {
        guard let total = order.total, let currency = total.currencyCode, !currency.isEmpty else { return nil }
        guard let amount = total.milliunits, amount >= 0 else {
            throw .malformedPayload("Google's order total is not an amount of money.")
        }
        func amountOf(_ money: GoogleMoney?) -> Int64? {
            money?.currencyCode == currency ? money?.milliunits : nil
        }
        sale.taxMilliunits = amountOf(order.tax).map { min(max($0, 0), amount) }
        sale.reportedProceedsMilliunits = amountOf(order.developerRevenueInBuyerCurrency).map { min($0, amount) }
        sale.refundedMilliunits = order.refundedMilliunits.map { min(max($0, 0), amount) }.flatMap { $0 > 0 ? $0 : nil }
        return PurchasePrice(milliunits: amount, currency: currency)
    }

    /// The buyer's country from the order, else the purchase's region; alpha-2, empty when Google says neither.
    private static func country(order: PlayOrder?, regionCode: String?) -> String {
        let code = order?.buyerAddress?.buyerCountry ?? regionCode ?? ""
        return CountryCode.alpha2(code) ?? code.uppercased()
    }
}
