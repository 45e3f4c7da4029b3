import EntitlementsProto
import ProtobufWire

/// A contract enum with the proto names of its values, for both output formats. A value this build does not know
/// (added to the contract later) has no name: it prints as its number, which is also what proto3 JSON expects.
protocol NamedProtoEnum: ProtoEnum {
    static var names: [String] { get }
}

extension NamedProtoEnum {
    var knownName: String? { Self.names.indices.contains(Int(rawValue)) ? Self.names[Int(rawValue)] : nil }
    var name: String { knownName ?? String(rawValue) }
}

extension SubscriptionStatus.State: NamedProtoEnum {
    static let names = ["STATE_UNSPECIFIED", "ACTIVE", "INACTIVE"]
}

extension ListCustomersRequest.State: NamedProtoEnum {
    static let names = ["STATE_UNSPECIFIED", "ACTIVE", "INACTIVE", "GRACE_PERIOD", "BILLING_RETRY"]
}

extension CustomerMatch.MatchedBy: NamedProtoEnum {
    static let names = [
        "MATCHED_BY_UNSPECIFIED", "APP_USER_ID", "ALIAS", "ORIGINAL_TRANSACTION_ID", "TRANSACTION_ID", "STORE_REFERENCE", "EMAIL",
    ]
}

extension AuditEvent.Action: NamedProtoEnum {
    static let names = ["ACTION_UNSPECIFIED", "CUSTOMER_EXPORTED", "CUSTOMER_DELETED"]
}

extension Metric: NamedProtoEnum {
    static let names = [
        "METRIC_UNSPECIFIED", "REVENUE", "REFUNDS", "NET_REVENUE", "PROCEEDS", "NEW_SUBSCRIPTIONS", "TRIAL_STARTS",
        "TRIAL_CONVERSIONS", "RENEWALS", "REFUND_RATE", "ACTIVE_SUBSCRIPTIONS", "ACTIVE_TRIALS", "MRR", "CHURN",
        "REACTIVATIONS", "TRIAL_CONVERSION_RATE", "GRACE_PERIOD_SUBSCRIPTIONS", "BILLING_RETRY_SUBSCRIPTIONS",
        "GRACE_PERIOD_MRR", "BILLING_RETRY_MRR",
    ]
}

extension MetricInterval: NamedProtoEnum {
    static let names = ["METRIC_INTERVAL_UNSPECIFIED", "DAY", "WEEK", "MONTH"]
}

extension MetricDimension: NamedProtoEnum {
    static let names = ["METRIC_DIMENSION_UNSPECIFIED", "STORE", "PRODUCT", "ENTITLEMENT", "COUNTRY", "OFFER_KIND"]
}

extension Store: NamedProtoEnum {
    static let names = ["STORE_UNSPECIFIED", "APP_STORE", "PLAY_STORE", "WEB", "GRANT"]
}

extension StatusEvent.Kind: NamedProtoEnum {
    static let names = ["KIND_UNSPECIFIED", "SNAPSHOT", "STATUS_CHANGED", "CUSTOMER_INFO_CHANGED", "HEARTBEAT"]
}

extension CustomerEvent.Cause: NamedProtoEnum {
    static let names = [
        "CAUSE_UNSPECIFIED", "CREATED", "MERGED", "PURCHASE", "RESTORE", "TRANSFERRED_IN", "TRANSFERRED_OUT",
        "APP_STORE_NOTIFICATION", "PLAY_STORE_NOTIFICATION", "GRANT", "REVOKE", "EXPIRY",
        "STORE_API", "STRIPE_WEBHOOK", "REDEMPTION", "SUPPORT", "ATTRIBUTES", "OFFER_SIGNED",
    ]
}

extension StoreEnvironment: NamedProtoEnum {
    static let names = ["STORE_ENVIRONMENT_UNSPECIFIED", "PRODUCTION", "SANDBOX", "XCODE", "LOCAL_TESTING"]
}

extension PurchaseResult.Outcome: NamedProtoEnum {
    static let names = ["OUTCOME_UNSPECIFIED", "NEW", "UPDATED", "UNCHANGED", "OLDER_THAN_STORED"]
}

extension Transaction.Ownership: NamedProtoEnum {
    static let names = ["OWNERSHIP_UNSPECIFIED", "PURCHASED", "FAMILY_SHARED"]
}

extension Transaction.Acknowledgement: NamedProtoEnum {
    static let names = ["ACKNOWLEDGEMENT_UNSPECIFIED", "NOT_REQUIRED", "PENDING", "ACKNOWLEDGED", "FAILED"]
}

extension WebhookDeliveryState: NamedProtoEnum {
    static let names = [
        "WEBHOOK_DELIVERY_STATE_UNSPECIFIED", "WEBHOOK_DELIVERY_STATE_PENDING", "WEBHOOK_DELIVERY_STATE_DELIVERED",
        "WEBHOOK_DELIVERY_STATE_FAILED", "WEBHOOK_DELIVERY_STATE_NOTICE",
    ]
}

extension SendConsumptionInfoRequest.DeliveryStatus: NamedProtoEnum {
    static let names = [
        "DELIVERY_STATUS_UNSPECIFIED", "DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM",
        "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER",
    ]
}
