/// The tables `migrate-store` copies, parents before the rows that refer to them, each with the key it is read in
/// order of and whether SQLite's implicit `rowid` goes along (the PostgreSQL schema keeps it as a column where the
/// queries sort by insertion order).
struct CopiedTable: Sendable {
    let name: String
    let key: [String]
    let copiesRowID: Bool

    static let all: [CopiedTable] = [
        CopiedTable(name: "customers", key: ["id"], copiesRowID: false),
        CopiedTable(name: "app_user_ids", key: ["tenant_id", "app_user_id"], copiesRowID: true),
        CopiedTable(name: "grants", key: ["grant_id"], copiesRowID: true),
        CopiedTable(name: "events", key: ["tenant_id", "customer_id", "version"], copiesRowID: false),
        CopiedTable(name: "transactions", key: ["tenant_id", "store", "original_transaction_id"], copiesRowID: true),
        CopiedTable(name: "processed_notifications", key: ["tenant_id", "notification_id"], copiesRowID: false),
        CopiedTable(name: "poll_cursors", key: ["tenant_id", "name"], copiesRowID: false),
        CopiedTable(
            name: "purchase_references", key: ["tenant_id", "store", "reference_id", "original_transaction_id"],
            copiesRowID: false),
        CopiedTable(name: "redemption_codes", key: ["tenant_id", "code_hash"], copiesRowID: false),
        CopiedTable(name: "pending_revocations", key: ["tenant_id", "store", "reference_id"], copiesRowID: false),
        CopiedTable(name: "webhook_deliveries", key: ["id"], copiesRowID: false),
        CopiedTable(name: "disabled_webhook_endpoints", key: ["tenant_id", "endpoint_id"], copiesRowID: false),
        CopiedTable(
            name: "customer_entitlements", key: ["tenant_id", "customer_id", "entitlement_id"], copiesRowID: false),
        CopiedTable(
            name: "renewal_extensions", key: ["tenant_id", "original_transaction_id", "request_identifier"],
            copiesRowID: false),
        CopiedTable(name: "audit_log", key: ["id"], copiesRowID: false),
        CopiedTable(name: "erased_customers", key: ["tenant_id", "subject"], copiesRowID: false),
        CopiedTable(name: "erasure_keys", key: ["tenant_id"], copiesRowID: false),
        CopiedTable(name: "customer_attributes", key: ["tenant_id", "customer_id", "key"], copiesRowID: false),
        CopiedTable(name: "offer_signatures", key: ["tenant_id", "nonce"], copiesRowID: false),
        CopiedTable(name: "offer_totals", key: ["tenant_id", "offer_id"], copiesRowID: false),
        CopiedTable(name: "revenue_ledger", key: ["tenant_id", "store", "transaction_id", "direction"], copiesRowID: false),
        CopiedTable(
            name: "revenue_daily",
            key: [
                "tenant_id", "environment", "day", "store", "product_id", "entitlement_ids", "country", "currency",
                "offer_kind", "kind",
            ], copiesRowID: false),
        CopiedTable(
            name: "subscription_daily",
            key: [
                "tenant_id", "environment", "day", "store", "product_id", "entitlement_ids", "country", "currency",
                "offer_kind", "state",
            ], copiesRowID: false),
        CopiedTable(
            name: "revenue_daily_ungrouped", key: ["tenant_id", "environment", "day", "currency", "kind"],
            copiesRowID: false),
        CopiedTable(
            name: "subscription_daily_ungrouped", key: ["tenant_id", "environment", "day", "currency", "state"],
            copiesRowID: false),
        CopiedTable(
            name: "subscription_events",
            key: [
                "tenant_id", "store", "original_transaction_id", "event", "day", "gap_start_day", "transaction_id",
            ], copiesRowID: false),
        CopiedTable(
            name: "billing_observations",
            key: ["tenant_id", "store", "original_transaction_id", "observed_at", "due_at", "billing"], copiesRowID: false),
    ]

    /// Identity columns whose sequences must continue after the copied values.
    static let identities = [
        ("customers", "id"), ("webhook_deliveries", "id"), ("app_user_ids", "rowid"), ("grants", "rowid"),
        ("transactions", "rowid"), ("audit_log", "id"),
    ]
}
