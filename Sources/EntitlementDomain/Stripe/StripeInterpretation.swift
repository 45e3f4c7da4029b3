import BoundedText
public import Stripe

/// How Stripe's objects become a ``StorePurchase``: one place for every Stripe rule (which statuses grant, what
/// cancelling at the period's end, past-due grace, refunds and disputes mean). A subscription is one purchase keyed by
/// its `sub_…` ID; a one-time Checkout payment one keyed by its payment intent (`pi_…`, what a refund or dispute
/// names), else its session.
///
/// Stripe signs its webhooks but not its objects, and delivers events in any order: each object's data is dated by
/// `observedAt`, the event's `created` (or the time of a fetch from Stripe's API), and stored as the purchase's
/// ordering clock (``StorePurchase/signedAt``), so older data never replaces newer. ``observationTime(created:status:)``
/// breaks ties within a second along a subscription's life.
public enum StripeInterpretation {
    /// The product type of a subscription's record.
    public static let subscriptionType = "subscription"
    /// The product type of a one-time Checkout payment's record.
    public static let oneTimeType = "one_time"
    /// The metadata key naming the app user a checkout is for, read from a Checkout Session (after
    /// `client_reference_id`) and a subscription (set through `subscription_data.metadata`).
    public static let appUserIDKey = "app_user_id"
    /// The metadata key naming the price a one-time Checkout Session sold when its line items are not at hand
    /// (webhooks never include them; a fetch from the API expands them).
    public static let priceIDKey = "price_id"

    /// The ordering clock of an object seen in an event created at `created` (seconds): milliseconds, with a
    /// subscription's status ranked inside the second, so that of two events created in the same second the later
    /// stage of the life (`active` after `incomplete`, `canceled` after `active`) wins whatever order they arrive in.
    /// INVALID_ARGUMENT when `created` lies outside ``UnixTime/representable``.
    public static func observationTime(created: Int64, status: StripeSubscription.OpenStatus? = nil) throws(DomainError)
        -> UnixTime
    {
        let second = try UnixTime(seconds: created, checking: "created")
        return UnixTime(milliseconds: second.milliseconds + Int64(status.map(rank) ?? 0))
    }

    private static func rank(_ status: StripeSubscription.OpenStatus) -> Int {
        switch status.known {
        case .incomplete: 1
        case .trialing: 2
        case .active: 3
        case .pastDue: 4
        case .unpaid, .paused: 5
        case .canceled, .incompleteExpired: 7
        case nil: 6
        }
    }

    /// The app user a subscription's metadata names (valid IDs only); nil when none.
    public static func namedUser(of subscription: StripeSubscription) -> String? {
        validUser(subscription.metadata?[appUserIDKey])
    }

    /// The app user a Checkout Session names: `client_reference_id`, else `metadata.app_user_id`; nil when neither is
    /// a valid app user ID.
    public static func namedUser(of session: StripeCheckoutSession) -> String? {
        validUser(session.clientReferenceID) ?? validUser(session.metadata?[appUserIDKey])
    }

    private static func validUser(_ id: String?) -> String? {
        guard let id, (try? AppUserID.validate(id)) != nil else { return nil }
        return id
    }

    /// The purchase a subscription shows at `observedAt`. Refuses (`unmappedProduct`) one whose prices the tenant
    /// does not map, and (`tenantMisconfigured`) one of a mode the tenant does not accept.
    public static func purchase(
        fromSubscription subscription: StripeSubscription, observedAt: UnixTime, origin: PurchaseOrigin, tenant: Tenant,
        settings: StripeSettings
    ) throws(DomainError) -> StorePurchase {
        let environment = try environment(livemode: subscription.livemode, settings: settings)
        var productID: String?
        var charged: PurchasePrice?
        var entitlements: [String] = []
        for item in subscription.items?.data ?? [] {
            guard let price = item.price,
                let mapped = settings.tenantProduct(forPrice: price.id, product: price.product?.id)
            else { continue }
            if productID == nil {
                productID = mapped
                charged = Self.price(
                    price.unitAmount.flatMap { amount in
                        let (total, overflow) = amount.multipliedReportingOverflow(by: max(1, item.quantity ?? 1))
                        return overflow ? nil : total
                    }, currency: price.currency)
            }
            for id in tenant.entitlements(forProduct: mapped) where !entitlements.contains(id) { entitlements.append(id) }
        }
        guard let productID else {
            let prices = subscription.priceIDs.map(\.quotedForMessage).joined(separator: ", ")
            throw .unmappedProduct(
                "Subscription \(subscription.id.quotedForMessage) has no price this app maps (prices: \(prices.isEmpty ? "none" : prices)); add one to the tenant's stripe prices or products.")
        }
        let startedAt = try UnixTime.checked(
            seconds: subscription.startDate ?? subscription.created,
            field: subscription.startDate == nil ? "created" : "start_date")
        guard let periodEnd = try UnixTime.checked(seconds: subscription.periodEnd, field: "current_period_end") else {
            throw .malformedPayload("Subscription \(subscription.id.quotedForMessage) has no current_period_end.")
        }
        let periodStart =
            try UnixTime.checked(seconds: subscription.periodStart, field: "current_period_start") ?? startedAt ?? observedAt
        // A cancellation scheduled before the period ends ends access then.
        let scheduledEnd = try UnixTime.checked(seconds: subscription.cancelAt, field: "cancel_at")
        let paidEnd = min(periodEnd, scheduledEnd ?? periodEnd)
        var expiresAt = paidEnd
        let status = subscription.status.known
        var renewal = RenewalState.paid
        var willRenew = subscription.cancelAtPeriodEnd != true && scheduledEnd == nil
        switch status {
        case .active, .trialing:
            break
        case .pastDue:
            // The renewal failed and Stripe is retrying: the new period is billed but not paid, so what was paid ends
            // where it begins. The tenant's grace window (none by default) goes on from there.
            expiresAt = min(paidEnd, periodStart)
            renewal =
                settings.pastDueGraceDays > 0
                ? .grace(until: min(paidEnd, periodStart.adding(days: settings.pastDueGraceDays))) : .billingRetry
        case .canceled:
            willRenew = false
            let endedAt = try UnixTime.checked(seconds: subscription.endedAt, field: "ended_at") ?? observedAt
            expiresAt = min(expiresAt, endedAt)
            renewal = .held(billingRetry: false)
        case .unpaid, .incomplete, .incompleteExpired, .paused, nil:
            // Not paid for (or a status this server does not know): nothing, whatever the period says.
            willRenew = willRenew && (status == .unpaid || status == .incomplete)
            renewal = .held(billingRetry: status == .unpaid)
        }
        return StorePurchase(
            tenantID: tenant.id, store: .stripe, originalTransactionID: subscription.id,
            transactionID: subscription.latestInvoice?.id ?? subscription.id, customerID: nil, productID: productID,
            productType: subscriptionType, entitlementIDs: entitlements, environment: environment,
            purchasedAt: startedAt ?? periodStart, originalPurchaseAt: startedAt, expiresAt: expiresAt, revokedAt: nil,
            revocationReason: "", ownership: .purchased, willRenew: willRenew, renewal: renewal, appAccountToken: "",
            offerType: status == .trialing ? "trial" : "", signedAt: observedAt, updatedAt: observedAt,
            renewalStateAsOf: observedAt, origin: origin, price: charged)
    }

    /// The purchase a one-time Checkout Session (`mode` `payment`) shows: a lifetime product once paid, nothing while a
    /// delayed payment method is still `unpaid`. What it sold comes from its line items when fetched with them, else
    /// from `metadata.price_id`. Nil for a session of another mode (a subscription's arrives as the subscription).
    public static func purchase(
        fromCheckoutSession session: StripeCheckoutSession, observedAt: UnixTime, origin: PurchaseOrigin, tenant: Tenant,
        settings: StripeSettings
    ) throws(DomainError) -> StorePurchase? {
        guard session.mode == "payment" else { return nil }
        let environment = try environment(livemode: session.livemode, settings: settings)
        let prices = session.lineItems?.data.compactMap(\.price)
            ?? session.metadata?[priceIDKey].map { [StripeSubscription.Item.Price(id: $0, product: nil)] } ?? []
        guard let productID = prices.lazy.compactMap({ settings.tenantProduct(forPrice: $0.id, product: $0.product?.id) }).first
        else {
            throw .unmappedProduct(
                "Checkout Session \(session.id.quotedForMessage) sold no price this app maps (without an API key its metadata.\(priceIDKey) names the price).")
        }
        let entitlements = tenant.entitlements(forProduct: productID)
        guard !entitlements.isEmpty else {
            throw .unmappedProduct("Product \(productID.quotedForMessage) maps to no entitlement in tenant '\(tenant.id)'.")
        }
        let purchasedAt = try UnixTime.checked(seconds: session.created, field: "created") ?? observedAt
        let price = Self.price(session.amountTotal, currency: session.currency)
        return StorePurchase(
            tenantID: tenant.id, store: .stripe, originalTransactionID: session.paymentIntent?.id ?? session.id,
            transactionID: session.id, customerID: nil, productID: productID, productType: oneTimeType,
            entitlementIDs: entitlements, environment: environment, purchasedAt: purchasedAt,
            originalPurchaseAt: purchasedAt, expiresAt: nil, revokedAt: nil, revocationReason: "", ownership: .purchased,
            willRenew: false, renewal: session.paymentStatus == "unpaid" ? .held(billingRetry: false) : .paid,
            appAccountToken: "", offerType: "", signedAt: observedAt, updatedAt: observedAt, origin: origin,
            price: price, sale: sale(of: session, price: price))
    }

    /// A Stripe amount (the currency's smallest unit) as a price; nil without both, or when it does not fit.
    static func price(_ amount: Int64?, currency: String?) -> PurchasePrice? {
        guard let amount, let currency, let milliunits = StripeAmount.milliunits(amount, currency: currency) else {
            return nil
        }
        return PurchasePrice(milliunits: milliunits, currency: currency)
    }

    /// A paid invoice of a held subscription: its period paid for, from `observedAt` on. Nil when it adds nothing
    /// (an earlier period, a subscription not held).
    public static func paid(_ invoice: StripeInvoice, stored: StorePurchase, observedAt: UnixTime) throws(DomainError)
        -> StorePurchase?
    {
        guard let periodEnd = try UnixTime.checked(seconds: invoice.periodEnd, field: "lines.data[].period.end"),
            periodEnd > (stored.expiresAt ?? UnixTime(milliseconds: 0)) || stored.renewal.isHeld
        else { return nil }
        var paid = stored
        paid.transactionID = invoice.id
        // The stored sale was the previous invoice's: this one's is its own (``charged(_:by:)``).
        paid.sale = nil
        paid.expiresAt = periodEnd
        paid.renewal = .paid
        paid.revokedAt = nil
        paid.revocationReason = ""
        paid.signedAt = observedAt
        paid.renewalStateAsOf = observedAt
        paid.updatedAt = observedAt
        paid.origin = .notification
        return paid
    }

    /// A held subscription whose renewal failed: in billing retry from `observedAt` (its access is its status's).
    public static func paymentFailed(stored: StorePurchase, observedAt: UnixTime) -> StorePurchase? {
        guard !stored.renewal.inBillingRetry, observedAt > stored.renewalStateAsOf else { return nil }
        var failed = stored
        failed.renewal = stored.renewal.isHeld ? .held(billingRetry: true) : .billingRetry
        failed.renewalStateAsOf = observedAt
        failed.updatedAt = observedAt
        failed.origin = .notification
        return failed
    }

    /// What a refunded or disputed charge takes back: the purchase it paid for, revoked at `at` (for a subscription,
    /// its current invoice: a later paid one gives access again). Nil when already revoked.
    public static func revoking(_ stored: StorePurchase, at time: UnixTime, reason: String) -> StorePurchase? {
        stored.revoked(at: time, reason: reason, origin: .notification)
    }

    /// A refund takes the purchase back only when it refunds the whole charge (`refunded`); a partial refund (a
    /// goodwill credit, one seat of several) leaves access as it was.
    public static func refundTakesBack(_ charge: StripeCharge) -> Bool { charge.refunded == true }

    /// Dispute statuses after which the money stays with the buyer's bank or is still at stake; `won` and
    /// `warning_closed` give it back.
    public static func disputeTakesBack(status: String?) -> Bool {
        status != "won" && status != "warning_closed"
    }

    private static func environment(livemode: Bool?, settings: StripeSettings) throws(DomainError) -> PurchaseEnvironment {
        let name = StripeEnvironmentName(livemode: livemode ?? false)
        guard settings.environments.contains(name) else {
            throw .tenantMisconfigured(
                name == .test
                    ? "This is a Stripe test-mode object; this app accepts only live payments."
                    : "This is a live Stripe object; this app accepts only test-mode payments.")
        }
        return name == .live ? .production : .sandbox
    }
}
