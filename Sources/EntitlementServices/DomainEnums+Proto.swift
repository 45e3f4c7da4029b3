import EntitlementDomain
import EntitlementsProto

/// Domain enums in the API's numbers, case by case: the contract's numbers are fixed by the proto, and a reordered
/// domain enum must not change what clients read (a test pins every pair).
extension EntitlementsProto.Store {
    init(_ source: EntitlementSource) {
        self =
            switch source {
            case .appStore: .appStore
            case .playStore: .playStore
            case .stripe: .web
            case .grant: .grant
            }
    }

    init(_ store: EntitlementDomain.Store) {
        self.init(store.entitlementSource)
    }
}

extension Metric {
    init(_ metric: RevenueMetric) {
        self =
            switch metric {
            case .revenue: .revenue
            case .refunds: .refunds
            case .netRevenue: .netRevenue
            case .proceeds: .proceeds
            case .newSubscriptions: .newSubscriptions
            case .trialStarts: .trialStarts
            case .trialConversions: .trialConversions
            case .renewals: .renewals
            case .refundRate: .refundRate
            case .activeSubscriptions: .activeSubscriptions
            case .activeTrials: .activeTrials
            case .mrr: .mrr
            case .churn: .churn
            case .reactivations: .reactivations
            case .trialConversionRate: .trialConversionRate
            case .gracePeriodSubscriptions: .gracePeriodSubscriptions
            case .billingRetrySubscriptions: .billingRetrySubscriptions
            case .gracePeriodMRR: .gracePeriodMRR
            case .billingRetryMRR: .billingRetryMRR
            }
    }
}

extension MetricDimension {
    init(_ dimension: RevenueDimension) {
        self =
            switch dimension {
            case .store: .store
            case .product: .product
            case .entitlements: .entitlement
            case .country: .country
            case .offer: .offerKind
            }
    }
}

extension StoreEnvironment {
    init(_ environment: PurchaseEnvironment) {
        self =
            switch environment {
            case .production: .production
            case .sandbox: .sandbox
            case .xcode: .xcode
            case .localTesting: .localTesting
            }
    }
}

extension Transaction.Ownership {
    init(_ ownership: PurchaseOwnership) {
        self =
            switch ownership {
            case .purchased: .purchased
            case .familyShared: .familyShared
            }
    }
}

extension Transaction.Acknowledgement {
    init(_ state: PurchaseAcknowledgement.State) {
        self =
            switch state {
            case .notRequired: .notRequired
            case .pending: .pending
            case .acknowledged: .acknowledged
            case .failed: .failed
            }
    }
}

extension CustomerEvent.Cause {
    init(_ cause: EventCause) {
        self =
            switch cause {
            case .created: .created
            case .merged: .merged
            case .purchase: .purchase
            case .restore: .restore
            case .transferredIn: .transferredIn
            case .transferredOut: .transferredOut
            case .appStoreNotification: .appStoreNotification
            case .playStoreNotification: .playStoreNotification
            case .grant: .grant
            case .revoke: .revoke
            case .expiry: .expiry
            case .storeAPI: .storeAPI
            case .stripeWebhook: .stripeWebhook
            case .redemption: .redemption
            case .support: .support
            case .attributes: .attributes
            case .offerSigned: .offerSigned
            }
    }
}

extension StatusEvent.Kind {
    init(_ change: StatusChange) {
        self =
            switch change {
            case .statusChanged: .statusChanged
            case .customerInfoChanged: .customerInfoChanged
            }
    }
}
