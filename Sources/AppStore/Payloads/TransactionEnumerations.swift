/// Known values of the transaction fields that Apple may extend (decoded as ``OpenEnum``).

/// `type`.
public enum ProductType: String, Sendable, Hashable, CaseIterable {
    case autoRenewableSubscription = "Auto-Renewable Subscription"
    case nonConsumable = "Non-Consumable"
    case consumable = "Consumable"
    case nonRenewingSubscription = "Non-Renewing Subscription"
}

/// `inAppOwnershipType`.
public enum InAppOwnershipType: String, Sendable, Hashable, CaseIterable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}

/// `revocationReason`.
public enum RevocationReason: Int, Sendable, Hashable, CaseIterable {
    case refundedForOtherReason = 0
    case refundedDueToIssue = 1
}

/// `revocationType`.
public enum RevocationType: String, Sendable, Hashable, CaseIterable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}

/// `offerType` (transactions and renewal infos).
public enum OfferType: Int, Sendable, Hashable, CaseIterable {
    case introductoryOffer = 1
    case promotionalOffer = 2
    case offerCode = 3
    case winBackOffer = 4
}

/// `transactionReason`.
public enum TransactionReason: String, Sendable, Hashable, CaseIterable {
    case purchase = "PURCHASE"
    case renewal = "RENEWAL"
}

/// `offerDiscountType` (transactions and renewal infos).
public enum OfferDiscountType: String, Sendable, Hashable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    case payAsYouGo = "PAY_AS_YOU_GO"
    case payUpFront = "PAY_UP_FRONT"
    case oneTime = "ONE_TIME"
}
