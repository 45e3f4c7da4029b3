import BoundedText
public import AppStore

/// How the App Store's verified data becomes a ``StorePurchase``: one place for every App Store rule (which fields
/// mean what, what each notification type and subtype does). Verification happens before, in the services layer;
/// which version of a purchase wins is ``PurchaseVersions``'s decision.
public enum AppStoreInterpretation {
    /// Notification types recorded that change nothing, even when they carry the purchase.
    static let informationalTypes: Set<String> = [
        "PRICE_INCREASE", "REFUND_DECLINED", "CONSUMPTION_REQUEST", "TEST", "RENEWAL_EXTENSION",
    ]

    /// A notification of this type is recorded and changes nothing.
    public static func isInformational(_ notificationType: String) -> Bool { informationalTypes.contains(notificationType) }

    /// The purchase a verified transaction shows. A product that maps to no entitlement is refused unless
    /// `unmappedGrantsNothing` (Apple's notifications are facts about the purchase whatever the mapping says).
    public static func purchase(
        from payload: JWSTransaction, tenant: Tenant, settings: AppStoreSettings, unmappedGrantsNothing: Bool = false
    ) throws(DomainError) -> StorePurchase {
        guard let originalID = payload.originalTransactionId, !originalID.isEmpty,
            let productID = payload.productId, !productID.isEmpty,
            let purchasedAt = try UnixTime.checked(milliseconds: payload.purchaseDate, field: "purchaseDate"),
            let signedAt = try UnixTime.checked(milliseconds: payload.signedDate, field: "signedDate")
        else {
            throw .malformedPayload(
                "The signed transaction lacks originalTransactionId, productId, purchaseDate or signedDate.")
        }
        let type = settings.products[productID]?.type ?? Self.productType(payload.type?.rawValue)
        guard let type else {
            throw .unmappedProduct(
                "Product \(productID.quotedForMessage) is not in the app's App Store products and the transaction does not say its type.")
        }
        let entitlements = type == .consumable ? [] : tenant.entitlements(forProduct: productID)
        guard type == .consumable || !entitlements.isEmpty || unmappedGrantsNothing else {
            throw .unmappedProduct("Product \(productID.quotedForMessage) maps to no entitlement in tenant '\(tenant.id)'.")
        }
        var expiresAt: UnixTime?
        switch type {
        case .autoRenewable: expiresAt = try UnixTime.checked(milliseconds: payload.expiresDate, field: "expiresDate")
        case .nonRenewing:
            guard let days = settings.products[productID]?.durationDays else {
                throw .tenantMisconfigured("Non-renewing product \(productID.quotedForMessage) needs duration_days in the app's settings.")
            }
            expiresAt = purchasedAt.adding(days: days)
        case .nonConsumable, .consumable: expiresAt = nil
        }
        let environment: PurchaseEnvironment
        switch payload.environment?.known {
        case .production?: environment = .production
        case .sandbox?: environment = .sandbox
        case .xcode?: environment = .xcode
        case .localTesting?: environment = .localTesting
        case nil:
            throw .malformedPayload("The signed transaction's environment is not one the App Store uses.")
        }
        let price = try price(of: payload)
        return StorePurchase(
            tenantID: tenant.id, store: .appStore, originalTransactionID: originalID,
            transactionID: payload.transactionId ?? originalID, customerID: nil, productID: productID,
            productType: payload.type?.rawValue ?? type.rawValue, entitlementIDs: entitlements,
            environment: environment, purchasedAt: purchasedAt,
            originalPurchaseAt: try UnixTime.checked(milliseconds: payload.originalPurchaseDate, field: "originalPurchaseDate"),
            expiresAt: expiresAt, revokedAt: try UnixTime.checked(milliseconds: payload.revocationDate, field: "revocationDate"),
            revocationReason: payload.revocationReason.map { String($0.rawValue) } ?? "",
            ownership: payload.inAppOwnershipType?.rawValue == "FAMILY_SHARED" ? .familyShared : .purchased,
            willRenew: type == .autoRenewable, appAccountToken: payload.appAccountToken ?? "",
            offerType: payload.offerType.map { String($0.rawValue) } ?? "", signedAt: signedAt,
            updatedAt: signedAt, isUpgraded: payload.isUpgraded ?? false,
            price: price, sale: sale(of: payload, price: price, renews: type == .autoRenewable))
    }

    /// What the buyer paid: Apple's `price` (thousandths of `currency`) where the transaction has both.
    private static func price(of payload: JWSTransaction) throws(DomainError) -> PurchasePrice? {
        guard let amount = payload.price, let currency = payload.currency else { return nil }
        guard amount >= 0 else { throw .malformedPayload("The signed transaction's price is negative.") }
        return PurchasePrice(milliunits: amount, currency: currency)
    }

    /// The transaction's reason, offer, storefront and refund (a share of `price`), as the revenue ledger records them.
    private static func sale(of payload: JWSTransaction, price: PurchasePrice?, renews: Bool) -> PurchaseSale {
        let isRenewal =
            switch payload.transactionReason?.known {
            case .renewal?: true
            case .purchase?: false
            // Signed before Apple added the field: a subscription's first transaction is the purchase.
            case nil: payload.transactionId != nil && payload.transactionId != payload.originalTransactionId
            }
        let kind: SaleKind = !renews ? .oneTime : isRenewal ? .subscriptionRenewal : .subscriptionPurchase
        var refunded: Int64?
        if payload.revocationDate != nil, payload.revocationType?.known != .familyRevoke, let price = price?.milliunits {
            refunded = price.share(thousandthsOfPercent: min(max(payload.revocationPercentage ?? 100_000, 0), 100_000))
        }
        return PurchaseSale(
            kind: kind, offer: offer(of: payload), offerID: payload.offerType == nil ? "" : payload.offerIdentifier ?? "",
            country: payload.storefront.map { CountryCode.alpha2($0) ?? $0.uppercased() } ?? "",
            refundedMilliunits: refunded)
    }

    private static func offer(of payload: JWSTransaction) -> OfferKind {
        guard let type = payload.offerType else { return .none }
        switch type.known {
        case .introductoryOffer?: return payload.offerDiscountType?.known == .freeTrial ? .freeTrial : .introductory
        case .promotionalOffer?: return .promotional
        case .offerCode?: return .offerCode
        case .winBackOffer?: return .winBack
        // A kind of offer Apple added since: an offer all the same, at a price of its own.
        case nil: return .promotional
        }
    }

    /// The purchase as the notification leaves it: the transaction's data, the renewal info's intentions, and the
    /// billing state the notification type announces.
    public static func purchase(
        from payload: JWSTransaction, renewal: JWSRenewalInfo?, notification: NotificationPayload, tenant: Tenant,
        settings: AppStoreSettings
    ) throws(DomainError) -> StorePurchase {
        // A product the tenant maps to nothing is still Apple's fact: stored, granting nothing (a refund or expiry
        // of a product whose mapping was removed still ends what the stored record gave).
        var record = try purchase(
            from: payload, tenant: tenant, settings: settings, unmappedGrantsNothing: true)
        record.origin = .notification
        let renewalInfo: RenewalBilling? = if let renewal { try apply(renewal, to: &record) } else { nil }
        switch (notification.notificationType?.known, notification.subtype?.known) {
        case (.didFailToRenew?, .gracePeriod?):
            record.renewal = gracePeriod(of: record, ending: renewalInfo?.graceEnd, settings: settings)
        case (.didFailToRenew?, nil):
            record.renewal = .billingRetry
        case (.gracePeriodExpired?, _), (.expired?, _):
            record.renewal = renewalInfo?.billingRetry == true ? .billingRetry : .paid
        default:
            record.renewal = renewalInfo.map { state(of: $0, expiresAt: record.expiresAt) } ?? .paid
        }
        return record
    }

    /// The purchase as Apple's App Store Server API shows a subscription (Get All Subscription Statuses): its newest
    /// transaction, its renewal info, and Apple's `status` (1 active, 2 expired, 3 billing retry, 4 billing grace
    /// period, 5 revoked; the transaction itself says expiry and revocation).
    public static func purchase(
        from payload: JWSTransaction, renewal: JWSRenewalInfo?, subscriptionStatus status: Int, tenant: Tenant,
        settings: AppStoreSettings, unmappedGrantsNothing: Bool = false
    ) throws(DomainError) -> StorePurchase {
        var record = try purchase(
            from: payload, tenant: tenant, settings: settings, unmappedGrantsNothing: unmappedGrantsNothing)
        record.origin = .storeAPI
        let renewalInfo: RenewalBilling? = if let renewal { try apply(renewal, to: &record) } else { nil }
        switch status {
        case 3: record.renewal = .billingRetry
        case 4: record.renewal = gracePeriod(of: record, ending: renewalInfo?.graceEnd, settings: settings)
        default: record.renewal = renewalInfo?.billingRetry == true ? .billingRetry : .paid
        }
        return record
    }

    /// What renewal info says about billing: Apple is retrying, and until when access goes on meanwhile.
    private struct RenewalBilling {
        var billingRetry: Bool
        var graceEnd: UnixTime?
    }

    /// The renewal info's intentions, as of its signature; its billing state is the caller's to combine with what
    /// the notification or status says.
    private static func apply(_ renewal: JWSRenewalInfo, to record: inout StorePurchase) throws(DomainError)
        -> RenewalBilling
    {
        record.renewalStateAsOf =
            try UnixTime.checked(milliseconds: renewal.signedDate, field: "signedRenewalInfo.signedDate") ?? record.signedAt
        record.willRenew = renewal.autoRenewStatus?.known == .on
        // A downgrade or crossgrade waits for the next renewal; until then the current product grants. (Which
        // product is current is the merge's decision: the data may be about an older period.)
        record.renewalProductID = renewal.autoRenewProductId ?? ""
        return RenewalBilling(
            billingRetry: renewal.isInBillingRetryPeriod ?? false,
            graceEnd: try UnixTime.checked(
                milliseconds: renewal.gracePeriodExpiresDate, field: "signedRenewalInfo.gracePeriodExpiresDate"))
    }

    /// Billing as renewal info alone says it: a grace period that reaches past the expiry, else retrying or paid.
    private static func state(of billing: RenewalBilling, expiresAt: UnixTime?) -> RenewalState {
        if let graceEnd = billing.graceEnd, let expiresAt, graceEnd > expiresAt { return .grace(until: graceEnd) }
        return billing.billingRetry ? .billingRetry : .paid
    }

    /// Access continues through the grace period Apple announces: to Apple's date, else to the tenant's grace window
    /// after the expiry.
    private static func gracePeriod(of record: StorePurchase, ending graceEnd: UnixTime?, settings: AppStoreSettings)
        -> RenewalState
    {
        guard let until = graceEnd ?? record.expiresAt?.adding(days: settings.gracePeriodDays) else { return .billingRetry }
        return .grace(until: until)
    }

    /// Apple's `type` of an auto-renewable subscription's transactions.
    public static let autoRenewableType = "Auto-Renewable Subscription"

    /// An auto-renewable subscription, as the transaction or the tenant's products say.
    public static func isSubscription(_ purchase: StorePurchase, settings: AppStoreSettings) -> Bool {
        productType(purchase.productType) == .autoRenewable || settings.products[purchase.productID]?.type == .autoRenewable
    }

    private static func productType(_ raw: String?) -> AppStoreProductType? {
        switch raw {
        case autoRenewableType: .autoRenewable
        case "Non-Consumable": .nonConsumable
        case "Consumable": .consumable
        case "Non-Renewing Subscription": .nonRenewing
        default: nil
        }
    }
}
