import BoundedText
public import GooglePlay

/// How Google Play's data becomes a ``StorePurchase``: one place for every Play rule (which states grant, what the
/// fields mean, what each notification adds). Google's answers are fetched over TLS by the services layer and are
/// the truth as of the fetch; Play signs nothing, so the fetch time is the ordering clock (``StorePurchase/signedAt``).
///
/// One purchase token is one purchase. A token that replaces another (upgrade, downgrade, re-signup) names it in
/// ``StorePurchase/replaces``; the engine marks the old one superseded.
public enum PlayStoreInterpretation {
    /// A subscription fetched with `purchases.subscriptionsv2.get`.
    public struct SubscriptionFacts: Sendable {
        public var token: String
        public var purchase: SubscriptionPurchaseV2
        /// When Google answered.
        public var fetchedAt: UnixTime
        /// The notification that made us fetch, if one did, and when Google sent it.
        public var notification: SubscriptionNotificationType?
        public var notifiedAt: UnixTime?
        /// Google's record of the current order (`orders.get`), when fetched: what it charged.
        public var order: PlayOrder?

        public init(
            token: String, purchase: SubscriptionPurchaseV2, fetchedAt: UnixTime,
            notification: SubscriptionNotificationType? = nil, notifiedAt: UnixTime? = nil, order: PlayOrder? = nil
        ) {
            self.token = token
            self.purchase = purchase
            self.fetchedAt = fetchedAt
            self.notification = notification
            self.notifiedAt = notifiedAt
            self.order = order
        }
    }

    /// States of a paid subscription, which Google refunds unless acknowledged (a pending one is not paid yet).
    static let acknowledgeableStates: Set<SubscriptionState> = [.active, .inGracePeriod, .canceled, .onHold, .paused]

    /// The purchase a subscription shows. `productID` is the one the device named (nil for notifications): Google's
    /// line items must include it. Refuses data for another app, an environment the tenant does not accept, and a
    /// product the tenant cannot place.
    public static func purchase(
        fromSubscription facts: SubscriptionFacts, productID expected: String?, tenant: Tenant, settings: PlayStoreSettings
    ) throws(DomainError) -> StorePurchase {
        let data = facts.purchase
        guard let items = data.lineItems, let first = items.first, let productID = first.productId, !productID.isEmpty
        else {
            throw .malformedPayload("Google's subscription for this token has no line items with a productId.")
        }
        if let expected, !items.contains(where: { $0.productId == expected }) {
            throw .notApplicable(
                "The purchase token is for \(productID.quotedForMessage), not \(expected.quotedForMessage).")
        }
        guard let state = data.subscriptionState?.known else {
            throw .malformedPayload(
                "Google's subscriptionState \((data.subscriptionState?.rawValue ?? "(missing)").quotedForMessage) is not one this server knows.")
        }
        let environment = try environment(isTest: data.testPurchase != nil, settings: settings)
        guard settings.products[productID] == .subscription || settings.products[productID] == nil else {
            throw .tenantMisconfigured(
                "Play product \(productID.quotedForMessage) is configured as \(settings.products[productID]!.rawValue), but Google says it is a subscription.")
        }
        // Every line item's entitlements (a subscription bundle has several), its own base plan's mapping first.
        var entitlements: [String] = []
        for item in items {
            for id in tenant.entitlements(forProduct: item.productId ?? "", basePlan: item.offerDetails?.basePlanId)
            where !entitlements.contains(id) {
                entitlements.append(id)
            }
        }
        var expiries: [UnixTime] = []
        for item in items {
            if let expiry = try UnixTime.checked(
                milliseconds: GooglePlayTime.milliseconds(rfc3339: item.expiryTime), field: "lineItems[].expiryTime")
            {
                expiries.append(expiry)
            }
        }
        let startedAt = try UnixTime.checked(
            milliseconds: GooglePlayTime.milliseconds(rfc3339: data.startTime), field: "startTime")
        // A paused subscription gives nothing until it resumes (then its period as Google gives it).
        let resumesAt = state == .paused
            ? try UnixTime.checked(
                milliseconds: GooglePlayTime.milliseconds(rfc3339: data.pausedStateContext?.autoResumeTime),
                field: "pausedStateContext.autoResumeTime")
            : nil
        let expiresAt = expiries.max()
        let renewal = renewalState(state, expiresAt: expiresAt, resumesAt: resumesAt)
        // Only a purchase that gives nothing (one not paid for yet) may lack an expiry.
        guard expiresAt != nil || renewal.isHeld else {
            throw .malformedPayload("Google's subscription for this token has no line item expiryTime.")
        }
        let paidOrder = currentOrderID(of: data)
        let orderID = paidOrder ?? facts.token
        // Nothing was charged before the first successful order (a purchase pending payment).
        let (sale, price) =
            paidOrder == nil
            ? (nil, nil)
            : try sale(
                of: data, item: first, orderID: orderID, order: facts.order,
                learnedAt: facts.notifiedAt ?? facts.fetchedAt)
        var record = StorePurchase(
            tenantID: tenant.id, store: .playStore, originalTransactionID: facts.token, transactionID: orderID,
            customerID: nil, productID: productID, productType: PlayProductType.subscription.rawValue,
            entitlementIDs: entitlements, environment: environment, purchasedAt: startedAt ?? facts.fetchedAt,
            originalPurchaseAt: startedAt, expiresAt: expiresAt, revokedAt: nil, revocationReason: "",
            ownership: .purchased, willRenew: first.autoRenewingPlan?.autoRenewEnabled ?? false, renewal: renewal,
            appAccountToken: data.externalAccountIdentifiers?.obfuscatedExternalAccountId ?? "",
            offerType: first.offerDetails?.offerId ?? "", signedAt: facts.fetchedAt, updatedAt: facts.fetchedAt,
            renewalStateAsOf: facts.fetchedAt,
            origin: facts.notification == nil ? .storeAPI : .notification, replaces: replaced(by: data, in: state),
            acknowledgement: acknowledgement(
                acknowledged: data.acknowledgementState?.known == .acknowledged,
                owed: data.acknowledgementState?.known == .pending && acknowledgeableStates.contains(state),
                at: facts.fetchedAt),
            price: price, sale: sale)
        if state == .onHold || state == .expired || state == .pending || state == .pendingPurchaseCanceled {
            record.willRenew = state == .onHold && record.willRenew
        }
        if facts.notification == .revoked {
            // Revoked (refunded) before its expiry: access ends when Google says so.
            record.revokedAt = facts.notifiedAt ?? facts.fetchedAt
            record.revocationReason = "REVOKED"
            record.willRenew = false
        }
        return record
    }

    /// The order a subscription's data names as its latest paid one; nil before any (a pending purchase).
    public static func currentOrderID(of data: SubscriptionPurchaseV2) -> String? {
        data.lineItems?.first?.latestSuccessfulOrderId ?? data.latestOrderId
    }

    /// What a subscription state means for access. Active and canceled (not yet expired) are paid through the
    /// expiry; in grace, Google's expiry already reaches the grace period's end. Outside those nothing is given,
    /// whatever the expiry says (a purchase still pending, one on hold, paused with no resume date, or revoked into
    /// EXPIRED with its old expiry), but a pause with a resume date gives its period from then.
    private static func renewalState(_ state: SubscriptionState, expiresAt: UnixTime?, resumesAt: UnixTime?)
        -> RenewalState
    {
        switch state {
        case .active, .canceled: .paid
        case .inGracePeriod: expiresAt.map { .grace(until: $0) } ?? .billingRetry
        case .paused: resumesAt.map { .paused(resumesAt: $0) } ?? .held(billingRetry: false)
        case .onHold: .held(billingRetry: true)
        case .pending, .pendingPurchaseCanceled, .expired, .unspecified: .held(billingRetry: false)
        }
    }

    /// The purchase this one replaces: its `linkedPurchaseToken`, once it is paid for. An upgrade or downgrade still
    /// pending payment replaces nothing yet: the old subscription goes on until the payment completes, and goes on
    /// after it if the payment is canceled (Google: "If this pending purchase was for an existing subscription, use
    /// linked_purchase_token to get the current state of that subscription").
    private static func replaced(by data: SubscriptionPurchaseV2, in state: SubscriptionState) -> String {
        state == .pending || state == .pendingPurchaseCanceled ? "" : data.linkedPurchaseToken ?? ""
    }

    /// The token of an earlier subscription whose owner a re-subscription made in the Play Store app inherits
    /// (`outOfAppPurchaseContext`), and that owner's obfuscated account ID; nil when Google names none.
    public static func previousPurchase(of purchase: SubscriptionPurchaseV2) -> (token: String, accountID: String)? {
        guard let context = purchase.outOfAppPurchaseContext else { return nil }
        let token = context.expiredPurchaseToken ?? ""
        let account = context.expiredExternalAccountIdentifiers?.obfuscatedExternalAccountId ?? ""
        guard !token.isEmpty || !account.isEmpty else { return nil }
        return (token, account)
    }

    /// A one-time product fetched with `purchases.products.get`. Purchased: a non-consumable grants for life, a
    /// consumable is recorded; pending grants nothing yet; canceled nothing.
    /// `order` is Google's record of its order, when fetched: what it charged.
    public static func purchase(
        fromProduct data: ProductPurchase, token: String, productID: String, fetchedAt: UnixTime, tenant: Tenant,
        settings: PlayStoreSettings, origin: PurchaseOrigin, order: PlayOrder? = nil
    ) throws(DomainError) -> StorePurchase {
        guard let type = settings.products[productID] else {
            throw .unmappedProduct(
                "Play product \(productID.quotedForMessage) is not in the app's play_store products; add it with its type.")
        }
        guard type != .subscription else {
            throw .tenantMisconfigured("Play product \(productID.quotedForMessage) is configured as a subscription, not a one-time product.")
        }
        if let reported = data.productId, !reported.isEmpty, reported != productID {
            throw .notApplicable("The purchase token is for \(reported.quotedForMessage), not \(productID.quotedForMessage).")
        }
        guard let state = data.state else {
            throw .malformedPayload("Google's purchaseState \(data.purchaseState.map(String.init) ?? "(missing)") is not 0, 1 or 2.")
        }
        let environment = try environment(isTest: data.isTestPurchase, settings: settings)
        let entitlements = type == .consumable ? [] : tenant.entitlements(forProduct: productID)
        guard type == .consumable || !entitlements.isEmpty else {
            throw .unmappedProduct("Product \(productID.quotedForMessage) maps to no entitlement in tenant '\(tenant.id)'.")
        }
        let purchasedAt = try UnixTime.checked(
            milliseconds: GooglePlayTime.milliseconds(decimal: data.purchaseTimeMillis), field: "purchaseTimeMillis")
            ?? fetchedAt
        let (sale, price) = try sale(of: data, order: order)
        var record = StorePurchase(
            tenantID: tenant.id, store: .playStore, originalTransactionID: token, transactionID: data.orderId ?? token,
            customerID: nil, productID: productID, productType: type.rawValue, entitlementIDs: entitlements,
            environment: environment, purchasedAt: purchasedAt, originalPurchaseAt: purchasedAt, expiresAt: nil,
            revokedAt: nil, revocationReason: "", ownership: .purchased, willRenew: false,
            appAccountToken: data.obfuscatedExternalAccountId ?? "",
            offerType: "", signedAt: fetchedAt, updatedAt: fetchedAt, origin: origin,
            acknowledgement: acknowledgement(
                acknowledged: data.isAcknowledged, owed: state == .purchased && !data.isAcknowledged, at: fetchedAt),
            price: price, sale: sale)
        switch state {
        case .purchased: break
        case .pending:
            // Paid for later (cash, a delayed method): nothing until Google says purchased.
            record.renewal = .held(billingRetry: false)
        case .canceled:
            record.revokedAt = fetchedAt
            record.revocationReason = "CANCELED"
        }
        return record
    }

    /// A voided purchase (Google's refund or chargeback that took it back): the stored purchase, revoked from when
    /// Google voided it. For a subscription, only the order that is current ends access: a voided earlier renewal
    /// took back a period that is over. A void of the current order gave its price back, unless Google's order says
    /// what it refunded.
    public static func revoking(_ stored: StorePurchase, orderID: String?, voidedAt: UnixTime, reason: String)
        -> StorePurchase?
    {
        if let orderID, !orderID.isEmpty, stored.productType == PlayProductType.subscription.rawValue,
            orderID != stored.transactionID, !isFirstOrder(orderID, of: stored.transactionID)
        {
            return nil
        }
        guard let revoked = stored.revoked(at: voidedAt, reason: reason, origin: .storeAPI) else { return nil }
        return orderID == nil || orderID == stored.transactionID ? refundedInFull(revoked) : revoked
    }

    /// A voided order's purchase with its whole price given back, unless Google's order said what it refunded.
    public static func refundedInFull(_ voided: StorePurchase) -> StorePurchase {
        var refunded = voided
        if let price = voided.price, price.milliunits > 0, voided.sale?.refundedMilliunits == nil {
            refunded.sale?.refundedMilliunits = price.milliunits
        }
        return refunded
    }

    /// Renewal order IDs are the first order's followed by `..N`; voiding the first voids the subscription's start.
    private static func isFirstOrder(_ orderID: String, of current: String) -> Bool {
        !orderID.contains("..") && current.hasPrefix(orderID + "..")
    }

    /// What Google's data says about the acknowledgement: done, owed (only once paid for), or nothing to do now.
    private static func acknowledgement(acknowledged: Bool, owed: Bool, at time: UnixTime) -> PurchaseAcknowledgement {
        if acknowledged { return PurchaseAcknowledgement(state: .acknowledged) }
        return owed ? .pending(at: time) : .notRequired
    }

    private static func environment(isTest: Bool, settings: PlayStoreSettings) throws(DomainError) -> PurchaseEnvironment {
        let name: PlayEnvironmentName = isTest ? .test : .production
        guard settings.environments.contains(name) else {
            throw .tenantMisconfigured(
                isTest
                    ? "This is a test purchase (a license tester's); this app accepts only production purchases."
                    : "This is a production purchase; this app accepts only test purchases.")
        }
        return isTest ? .sandbox : .production
    }
}
