/// The revenue words a person reads: the ledger's columns (README, "The revenue ledger") and webhooks say the same.
extension Store {
    /// The ledger's `store` (webhooks' `store` names Stripe `web`, as the status's sources do).
    public var ledgerName: String {
        switch self {
        case .appStore: "app_store"
        case .playStore: "play_store"
        case .stripe: "stripe"
        }
    }
}

extension SaleKind {
    public var name: String {
        switch self {
        case .oneTime: "one_time"
        case .subscriptionPurchase: "subscription_purchase"
        case .subscriptionRenewal: "subscription_renewal"
        }
    }
}

extension OfferKind {
    public var name: String {
        switch self {
        case .none: "none"
        case .freeTrial: "free_trial"
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .offerCode: "offer_code"
        case .winBack: "win_back"
        }
    }
}

extension MovementKind {
    public var name: String {
        switch self {
        case .purchase: "purchase"
        case .renewal: "renewal"
        case .trialStart: "trial_start"
        case .trialConversion: "trial_conversion"
        case .productChange: "product_change"
        case .oneTime: "one_time"
        case .refund: "refund"
        case .chargeback: "chargeback"
        case .refundReversal: "refund_reversal"
        }
    }
}

extension MovementDirection {
    public var name: String {
        switch self {
        case .payment: "payment"
        case .refund: "refund"
        case .refundReversal: "refund_reversal"
        }
    }
}
