import EntitlementDomain
/// The schema, as numbered migrations applied in order at startup, all pending ones in one transaction.
///
/// Append new migrations; never edit or renumber one that has shipped. `schema_migrations` records each applied
/// version, and a database that records a version this build does not know is refused.
enum Migrations {
    struct Migration {
        let version: Int64
        let sql: String
        /// Runs after `sql`, in the same transaction, for what SQL alone cannot do (decoding stored statuses).
        var backfill: (@Sendable (SQLiteConnection) throws(StorageError) -> Void)? = nil
    }

    static let all: [Migration] = [
        Migration(
            version: 1,
            sql: """
                CREATE TABLE customers (
                    id INTEGER PRIMARY KEY,
                    tenant_id TEXT NOT NULL,
                    app_user_id TEXT NOT NULL,
                    is_anonymous INTEGER NOT NULL,
                    version INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    next_change_at INTEGER,
                    UNIQUE (tenant_id, app_user_id),
                    -- Target of the tenant-checked foreign keys below: rows point only at their own tenant's customers.
                    UNIQUE (tenant_id, id)
                );
                CREATE INDEX customers_next_change_at ON customers (next_change_at) WHERE next_change_at IS NOT NULL;

                -- Every app user ID that resolves to a customer, the canonical one included.
                CREATE TABLE app_user_ids (
                    tenant_id TEXT NOT NULL,
                    app_user_id TEXT NOT NULL,
                    customer_id INTEGER NOT NULL,
                    added_at INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, app_user_id),
                    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
                );
                CREATE INDEX app_user_ids_customer ON app_user_ids (tenant_id, customer_id, added_at);

                CREATE TABLE grants (
                    grant_id TEXT PRIMARY KEY,
                    tenant_id TEXT NOT NULL,
                    customer_id INTEGER NOT NULL,
                    entitlement_id TEXT NOT NULL,
                    starts_at INTEGER NOT NULL,
                    expires_at INTEGER,
                    revoked_at INTEGER,
                    reason TEXT NOT NULL,
                    revocation_reason TEXT NOT NULL,
                    idempotency_key TEXT,
                    created_at INTEGER NOT NULL,
                    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
                );
                CREATE INDEX grants_customer ON grants (tenant_id, customer_id);
                CREATE UNIQUE INDEX grants_idempotency_key ON grants (tenant_id, idempotency_key)
                    WHERE idempotency_key IS NOT NULL;

                CREATE TABLE events (
                    tenant_id TEXT NOT NULL,
                    customer_id INTEGER NOT NULL,
                    version INTEGER NOT NULL,
                    cause INTEGER NOT NULL,
                    change INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    occurred_at INTEGER NOT NULL,
                    status BLOB NOT NULL,
                    related_app_user_id TEXT NOT NULL,
                    reference_id TEXT NOT NULL,
                    PRIMARY KEY (tenant_id, customer_id, version),
                    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
                );
                """
        ),
        Migration(
            version: 2,
            sql: """
                -- Store purchases, one row per original transaction; customer_id NULL while nobody owns it yet.
                CREATE TABLE transactions (
                    tenant_id TEXT NOT NULL,
                    store INTEGER NOT NULL,
                    original_transaction_id TEXT NOT NULL,
                    transaction_id TEXT NOT NULL,
                    customer_id INTEGER,
                    product_id TEXT NOT NULL,
                    product_type TEXT NOT NULL,
                    -- Entitlement IDs, each preceded by U+001F ('' for none).
                    entitlement_ids TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    purchased_at INTEGER NOT NULL,
                    original_purchase_at INTEGER,
                    expires_at INTEGER,
                    revoked_at INTEGER,
                    revocation_reason TEXT NOT NULL,
                    ownership TEXT NOT NULL,
                    will_renew INTEGER NOT NULL,
                    in_grace_period INTEGER NOT NULL,
                    in_billing_retry INTEGER NOT NULL,
                    grace_period_expires_at INTEGER,
                    app_account_token TEXT NOT NULL,
                    offer_type TEXT NOT NULL,
                    signed_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, store, original_transaction_id),
                    FOREIGN KEY (tenant_id, customer_id) REFERENCES customers (tenant_id, id)
                );
                CREATE INDEX transactions_customer ON transactions (tenant_id, customer_id);
                CREATE INDEX transactions_app_account_token ON transactions (tenant_id, app_account_token)
                    WHERE app_account_token <> '';

                -- Store notifications already applied, so a redelivery changes nothing.
                CREATE TABLE processed_notifications (
                    tenant_id TEXT NOT NULL,
                    notification_id TEXT NOT NULL,
                    received_at INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, notification_id)
                );
                """
        ),
        Migration(
            version: 3,
            sql: """
                -- The app_account_token Identify handed out for an app user ID while it was canonical (NULL: none yet;
                -- rows from before this migration get theirs at their next Identify). Kept on app_user_ids, not on
                -- customers, so a token keeps resolving after its ID becomes an alias or is merged into another
                -- customer.
                ALTER TABLE app_user_ids ADD COLUMN app_account_token TEXT;
                CREATE INDEX app_user_ids_app_account_token ON app_user_ids (tenant_id, app_account_token)
                    WHERE app_account_token IS NOT NULL;
                """
        ),
        Migration(
            version: 4,
            sql: """
                -- The product a subscription renews to when it differs from the current one (a downgrade pending
                -- until the next renewal); empty otherwise.
                ALTER TABLE transactions ADD COLUMN renewal_product_id TEXT NOT NULL DEFAULT '';
                -- Apple's isUpgraded: the user moved to a higher product; the transaction grants nothing.
                ALTER TABLE transactions ADD COLUMN is_upgraded INTEGER NOT NULL DEFAULT 0;
                -- When the renewal state was true; older rows had it set with their newest signed data.
                ALTER TABLE transactions ADD COLUMN renewal_state_as_of INTEGER NOT NULL DEFAULT 0;
                UPDATE transactions SET renewal_state_as_of = signed_at;
                """
        ),
        Migration(
            version: 5,
            sql: """
                -- The store-neutral purchase model: a paused subscription, one replaced by a newer purchase, and
                -- where the newest data came from. Older rows came from devices or App Store notifications, and
                -- which of the two was not kept: they read as 'device' (informational only; nothing depends on it).
                ALTER TABLE transactions ADD COLUMN paused_until INTEGER;
                ALTER TABLE transactions ADD COLUMN superseded_by TEXT NOT NULL DEFAULT '';
                ALTER TABLE transactions ADD COLUMN origin TEXT NOT NULL DEFAULT 'device';
                """
        ),
        Migration(
            version: 6,
            sql: """
                -- Google Play: the purchase a token replaces (linkedPurchaseToken), whether the store suspends it, and
                -- the acknowledgement the server
                -- owes Google, with its retry schedule, kept with the purchase so it survives a restart. Older rows
                -- are App Store purchases, which need no acknowledgement.
                ALTER TABLE transactions ADD COLUMN replaces TEXT NOT NULL DEFAULT '';
                -- The store says the purchase gives nothing now, whatever its dates (Play: pending, on hold...).
                ALTER TABLE transactions ADD COLUMN suspended INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE transactions ADD COLUMN acknowledgement TEXT NOT NULL DEFAULT 'not_required';
                ALTER TABLE transactions ADD COLUMN acknowledgement_attempts INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE transactions ADD COLUMN acknowledgement_due_at INTEGER;
                ALTER TABLE transactions ADD COLUMN acknowledgement_error TEXT NOT NULL DEFAULT '';
                CREATE INDEX transactions_replaces ON transactions (tenant_id, store, replaces) WHERE replaces <> '';
                CREATE INDEX transactions_acknowledgement_due ON transactions (acknowledgement_due_at)
                    WHERE acknowledgement = 'pending';
                -- Where each tenant's periodic store polls (Google Play's voided purchases) last stopped.
                CREATE TABLE poll_cursors (
                    tenant_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, name)
                );
                """
        ),
        Migration(
            version: 7,
            sql: """
                -- Other store IDs naming a purchase (a Stripe checkout session, customer, invoice, payment intent),
                -- and the buyer a checkout named for it, possibly before the purchase's own data arrived.
                CREATE TABLE purchase_references (
                    tenant_id TEXT NOT NULL,
                    store INTEGER NOT NULL,
                    reference_id TEXT NOT NULL,
                    original_transaction_id TEXT NOT NULL,
                    app_user_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, store, reference_id, original_transaction_id)
                );
                CREATE INDEX purchase_references_purchase
                    ON purchase_references (tenant_id, store, original_transaction_id);
                -- Single-use codes attaching a purchase nobody owns to the user presenting them; only their SHA-256.
                CREATE TABLE redemption_codes (
                    tenant_id TEXT NOT NULL,
                    code_hash TEXT NOT NULL,
                    store INTEGER NOT NULL,
                    original_transaction_id TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    used_at INTEGER,
                    used_by TEXT NOT NULL,
                    replaced_at INTEGER,
                    PRIMARY KEY (tenant_id, code_hash)
                );
                CREATE INDEX redemption_codes_purchase ON redemption_codes (tenant_id, store, original_transaction_id);
                -- Refunds and disputes of payments no held purchase was known by yet, applied when one is.
                CREATE TABLE pending_revocations (
                    tenant_id TEXT NOT NULL,
                    store INTEGER NOT NULL,
                    reference_id TEXT NOT NULL,
                    revoked_at INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    PRIMARY KEY (tenant_id, store, reference_id)
                );
                """
        ),
        Migration(
            version: 8,
            sql: """
                -- The webhook outbox and delivery log: one row per message to one endpoint, written in the
                -- transaction of the event it reports; notices (state 4) are log entries that are never sent.
                CREATE TABLE webhook_deliveries (
                    id INTEGER PRIMARY KEY,
                    tenant_id TEXT NOT NULL,
                    endpoint_id TEXT NOT NULL,
                    customer_id INTEGER,
                    app_user_id TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    message_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    body BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    state INTEGER NOT NULL,
                    attempts INTEGER NOT NULL,
                    next_attempt_at INTEGER,
                    leased_until INTEGER,
                    last_attempt_at INTEGER,
                    last_status INTEGER,
                    last_error TEXT NOT NULL,
                    delivered_at INTEGER
                );
                -- What is due, and the per-customer order to each endpoint (a later event waits for an earlier one).
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 1;
                CREATE INDEX webhook_deliveries_order
                    ON webhook_deliveries (tenant_id, endpoint_id, customer_id, id) WHERE state = 1;
                -- The operators' listing (newest first) and pruning.
                CREATE INDEX webhook_deliveries_log ON webhook_deliveries (tenant_id, id);
                CREATE INDEX webhook_deliveries_customer ON webhook_deliveries (tenant_id, customer_id, id);
                CREATE INDEX webhook_deliveries_age ON webhook_deliveries (state, created_at);
                -- Endpoints a 410 Gone turned off, until a redelivery turns them on.
                CREATE TABLE disabled_webhook_endpoints (
                    tenant_id TEXT NOT NULL,
                    endpoint_id TEXT NOT NULL,
                    disabled_at INTEGER NOT NULL,
                    reason TEXT NOT NULL,
                    PRIMARY KEY (tenant_id, endpoint_id)
                );
                """
        ),
        Migration(version: 9, sql: SubscriberIndex.migrationSQL, backfill: SubscriberIndex.backfill),
        Migration(
            version: 10,
            sql: """
                -- What the buyer paid for a purchase's newest transaction, where the store says: thousandths of the
                -- currency's unit, and the ISO 4217 code.
                ALTER TABLE transactions ADD COLUMN price_milliunits INTEGER;
                ALTER TABLE transactions ADD COLUMN currency TEXT NOT NULL DEFAULT '';
                """
        ),
        Migration(
            version: 11,
            sql: """
                -- Apple's renewal-date extensions the server asked for, for Apple's limit (twice in 365 days); the
                -- request identifier makes a retry of the same extension one row.
                CREATE TABLE renewal_extensions (
                    tenant_id TEXT NOT NULL,
                    original_transaction_id TEXT NOT NULL,
                    request_identifier TEXT NOT NULL,
                    days INTEGER NOT NULL,
                    extended_at INTEGER NOT NULL,
                    PRIMARY KEY (tenant_id, original_transaction_id, request_identifier)
                );
                """
        ),
        Migration(
            version: 12,
            sql: """
                -- The request ID of the call whose change queued the delivery, so its attempts log under it.
                ALTER TABLE webhook_deliveries ADD COLUMN request_id TEXT NOT NULL DEFAULT '';
                """
        ),
        Migration(
            version: 13,
            sql: """
                -- The name of the API key whose call made the change (empty for changes no call made).
                ALTER TABLE events ADD COLUMN key_name TEXT NOT NULL DEFAULT '';
                -- FindCustomers by a receipt's latest transaction or order ID.
                CREATE INDEX transactions_transaction_id ON transactions (tenant_id, transaction_id);
                """
        ),
        Migration(
            version: 14,
            sql: """
                -- When a purchase's access began, where that is before its purchase date (a renewal continuing a period
                -- that granted up to its start, a purchase dated a little ahead of the server's clock); NULL: from
                -- purchased_at.
                ALTER TABLE transactions ADD COLUMN access_from INTEGER;
                """
        ),
        Migration(version: 15, sql: revenueLedgerSQL(integer: "INTEGER")),
        Migration(version: 16, sql: ledgerProceedsSQL(integer: "INTEGER")),
        Migration(version: 17, sql: saleDetailsSQL(integer: "INTEGER")),
        Migration(version: 18, sql: revenueDailySQL(integer: "INTEGER")),
        Migration(
            version: 19, sql: SubscriptionDaily.migrationSQL(integer: "INTEGER"),
            backfill: { (connection) throws(StorageError) in try SubscriptionDaily.backfill(connection) }),
        Migration(
            version: 20, sql: SubscriptionEvents.migrationSQL(integer: "INTEGER"),
            backfill: { (connection) throws(StorageError) in try SubscriptionEvents.backfill(connection) }),
        Migration(version: 21, sql: UngroupedDaily.migrationSQL(integer: "INTEGER", clustered: " WITHOUT ROWID")),
        Migration(
            version: 22, sql: BillingObservations.migrationSQL(integer: "INTEGER"),
            backfill: { (connection) throws(StorageError) in try BillingObservations.backfill(connection) }),
        Migration(version: 23, sql: CustomerAttributes.migrationSQL(integer: "INTEGER")),
        Migration(version: 24, sql: AuditLog.migrationSQL(integer: "INTEGER", identity: "INTEGER PRIMARY KEY")),
        Migration(version: 25, sql: Erasure.migrationSQL(integer: "INTEGER", bytes: "BLOB")),
        Migration(version: 26, sql: Retention.migrationSQL),
        Migration(version: 27, sql: OfferSignatures.migrationSQL(integer: "INTEGER")),
    ]

    /// Version 15 on SQLite, 6 on PostgreSQL (`integer`: the 64-bit integer type): what the revenue ledger records
    /// of a purchase's newest transaction, and the ledger itself (README, "The revenue ledger": its schema is a
    /// documented contract an analyst queries).
    static func revenueLedgerSQL(integer: String) -> String {
        """
        -- NULL sale_kind: the store said nothing of the sale (purchases stored before the ledger).
        ALTER TABLE transactions ADD COLUMN sale_kind TEXT;
        ALTER TABLE transactions ADD COLUMN offer_kind TEXT NOT NULL DEFAULT '';
        ALTER TABLE transactions ADD COLUMN country TEXT NOT NULL DEFAULT '';
        ALTER TABLE transactions ADD COLUMN refunded_milliunits \(integer);

        -- One row per money movement a store reported, never updated: a refund is a row of its own.
        CREATE TABLE revenue_ledger (
            tenant_id TEXT NOT NULL,
            store TEXT NOT NULL,
            transaction_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            -- 'payment', 'refund' or 'refund_reversal': with the store's transaction ID, the row's key.
            direction TEXT NOT NULL,
            original_transaction_id TEXT NOT NULL,
            customer_id \(integer),
            product_id TEXT NOT NULL,
            -- The product's entitlements when recorded, separated by spaces.
            entitlement_ids TEXT NOT NULL,
            environment TEXT NOT NULL,
            country TEXT NOT NULL,
            offer_kind TEXT NOT NULL,
            -- Milliseconds since 1970 UTC, as every time in this schema.
            period_start \(integer) NOT NULL,
            period_end \(integer),
            amount_milliunits \(integer) NOT NULL,
            currency TEXT NOT NULL,
            occurred_at \(integer) NOT NULL,
            recorded_at \(integer) NOT NULL,
            PRIMARY KEY (tenant_id, store, transaction_id, direction)
        );
        CREATE INDEX revenue_ledger_occurred ON revenue_ledger (tenant_id, occurred_at);
        """
    }

    /// Version 16 on SQLite, 7 on PostgreSQL: each ledger row's estimated proceeds, NULL for rows recorded before.
    static func ledgerProceedsSQL(integer: String) -> String {
        "ALTER TABLE revenue_ledger ADD COLUMN proceeds_milliunits \(integer);"
    }

    /// Version 17 on SQLite, 8 on PostgreSQL: what a store reports beyond the price (Google's orders): the period a
    /// payment bought where it does not begin at the purchase date, the tax within the price, the developer's
    /// revenue; and each ledger row's tax. NULL where the store said nothing.
    static func saleDetailsSQL(integer: String) -> String {
        """
        ALTER TABLE transactions ADD COLUMN sale_period_start \(integer);
        ALTER TABLE transactions ADD COLUMN sale_tax_milliunits \(integer);
        ALTER TABLE transactions ADD COLUMN sale_reported_proceeds_milliunits \(integer);
        ALTER TABLE revenue_ledger ADD COLUMN tax_milliunits \(integer);
        """
    }

    /// Version 18 on SQLite, 9 on PostgreSQL: the ledger's daily totals (``RevenueDaily``), from the rows recorded
    /// so far. Every ledger row recorded after adds to them in its own transaction.
    static func revenueDailySQL(integer: String) -> String {
        """
        CREATE TABLE revenue_daily (
            tenant_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            -- The UTC day of the rows' occurred_at, as days since 1970-01-01.
            day \(integer) NOT NULL,
            store TEXT NOT NULL,
            product_id TEXT NOT NULL,
            entitlement_ids TEXT NOT NULL,
            country TEXT NOT NULL,
            currency TEXT NOT NULL,
            offer_kind TEXT NOT NULL,
            kind TEXT NOT NULL,
            movements \(integer) NOT NULL,
            amount_milliunits \(integer) NOT NULL,
            -- The rows' reported tax and proceeds; a row without adds nothing.
            tax_milliunits \(integer) NOT NULL,
            proceeds_milliunits \(integer) NOT NULL,
            PRIMARY KEY (
                tenant_id, environment, day, store, product_id, entitlement_ids, country, currency, offer_kind, kind)
        );
        INSERT INTO revenue_daily (\(RevenueDaily.columns))
        SELECT tenant_id, environment, \(RevenueDaily.dayOf("occurred_at")), store, product_id, entitlement_ids, country,
            currency, offer_kind, kind, COUNT(*), SUM(amount_milliunits), COALESCE(SUM(tax_milliunits), 0),
            COALESCE(SUM(proceeds_milliunits), 0)
        FROM revenue_ledger
        GROUP BY tenant_id, environment, \(RevenueDaily.dayOf("occurred_at")), store, product_id, entitlement_ids,
            country, currency, offer_kind, kind;
        """
    }

    static var latestVersion: Int64 { all.last?.version ?? 0 }

    /// Brings the schema up to date in one transaction, or refuses a database from a newer build.
    static func apply(on connection: SQLiteConnection, now: UnixTime) throws(StorageError) {
        try apply(all, on: connection, now: now)
    }

    static func apply(_ migrations: [Migration], on connection: SQLiteConnection, now: UnixTime) throws(StorageError) {
        let known = migrations.last?.version ?? 0
        try connection.execute("BEGIN IMMEDIATE")
        do throws(StorageError) {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)"
            )
            let current =
                try connection.row("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") { $0.int64(0) } ?? 0
            guard current <= known else {
                throw StorageError.corrupt(
                    "database \(connection.path) has schema version \(current), newer than this build knows "
                        + "(version \(known)); refusing to open it with older code")
            }
            for migration in migrations where migration.version > current {
                try connection.execute(migration.sql)
                try migration.backfill?(connection)
                try connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.integer(migration.version), .time(now)])
            }
            try connection.execute("COMMIT")
        } catch {
            connection.rollbackIfNeeded()
            throw error
        }
    }
}
