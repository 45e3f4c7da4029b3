/// Known values of the renewal info fields that Apple may extend (decoded as ``OpenEnum``).

/// `autoRenewStatus`.
public enum AutoRenewStatus: Int, Sendable, Hashable, CaseIterable {
    case off = 0
    case on = 1
}

/// `expirationIntent`.
public enum ExpirationIntent: Int, Sendable, Hashable, CaseIterable {
    case customerCancelled = 1
    case billingError = 2
    case customerDidNotConsentToPriceIncrease = 3
    case productNotAvailable = 4
    case other = 5
}

/// `priceIncreaseStatus`.
public enum PriceIncreaseStatus: Int, Sendable, Hashable, CaseIterable {
    case customerHasNotResponded = 0
    case customerConsentedOrWasNotifiedWithoutNeedingConsent = 1
}
