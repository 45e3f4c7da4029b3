public import EntitlementDomain

/// The revenue ledger's values: words, since analysts read them (README, "The revenue ledger").
extension StorageColumns {
    public static func ledgerStore(_ store: Store) -> String {
        switch store {
        case .appStore: "app_store"
        case .playStore: "play_store"
        case .stripe: "stripe"
        }
    }

    public static func saleKind(_ kind: SaleKind) -> String {
        switch kind {
        case .oneTime: "one_time"
        case .subscriptionPurchase: "subscription_purchase"
        case .subscriptionRenewal: "subscription_renewal"
        }
    }

    public static func offerKind(_ offer: OfferKind) -> String {
        switch offer {
        case .none: "none"
        case .freeTrial: "free_trial"
        case .introductory: "introductory"
        case .promotional: "promotional"
        case .offerCode: "offer_code"
        case .winBack: "win_back"
        }
    }

    public static func movementKind(_ kind: MovementKind) -> String {
        switch kind {
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

    public static func movementDirection(_ direction: MovementDirection) -> String {
        switch direction {
        case .payment: "payment"
        case .refund: "refund"
        case .refundReversal: "refund_reversal"
        }
    }
}
