import Crypto
import EntitlementDomain

/// Erasing a person (``CustomerErasure``): the tables that remember erasures, and the statements that remove what
/// named the person from every other table, in an order the foreign keys allow.
enum Erasure {
    /// Version 25 on SQLite, 16 on PostgreSQL.
    static func migrationSQL(integer: String, bytes: String) -> String {
        """
        -- The keyed hash of each erased app user ID and app account token, with the erasure's (its customer's
        -- canonical ID's hash): store data naming one is recognised without the ID.
        CREATE TABLE erased_customers (
            tenant_id TEXT NOT NULL,
            subject TEXT NOT NULL,
            tombstone TEXT NOT NULL,
            erased_at \(integer) NOT NULL,
            PRIMARY KEY (tenant_id, subject)
        );
        -- The key of each tenant's hashes, made at its first erasure.
        CREATE TABLE erasure_keys (
            tenant_id TEXT PRIMARY KEY,
            key \(bytes) NOT NULL,
            created_at \(integer) NOT NULL
        );
        -- The erased owner's hash on a purchase kept for accounting, while nobody owns it again.
        ALTER TABLE transactions ADD COLUMN erased_owner TEXT NOT NULL DEFAULT '';
        -- What an erasure looks up by the person's IDs, without reading a whole tenant's rows (few rows have one).
        CREATE INDEX events_related ON events (tenant_id, related_app_user_id) WHERE related_app_user_id <> '';
        CREATE INDEX redemption_codes_used_by ON redemption_codes (tenant_id, used_by) WHERE used_by <> '';
        CREATE INDEX purchase_references_buyer ON purchase_references (tenant_id, app_user_id) WHERE app_user_id <> '';
        CREATE INDEX billing_observations_customer ON billing_observations (tenant_id, customer_id)
            WHERE customer_id IS NOT NULL;
        """
    }
}

extension SQLExecutor {
    func erasureKey(tenantID: String) throws(StorageError) -> [UInt8] {
        try send(
            "INSERT INTO erasure_keys (tenant_id, key, created_at) VALUES (?, ?, ?) ON CONFLICT (tenant_id) DO NOTHING",
            [.text(tenantID), .blob(SecureRandom.bytes(ErasureSubject.keyBytes)), .time(StorageSQL.now())],
            unlessOneRow: nil)
        guard let key = try existingErasureKey(tenantID: tenantID) else {
            throw StorageError.conflict("the erasure key of tenant \(tenantID) vanished inside its own transaction")
        }
        return key
    }

    func existingErasureKey(tenantID: String) throws(StorageError) -> [UInt8]? {
        try row("SELECT key FROM erasure_keys WHERE tenant_id = ?", [.text(tenantID)]) { $0.blob(0) }
    }

    func erasure(tenantID: String, subject: String) throws(StorageError) -> String? {
        try row(
            "SELECT tombstone FROM erased_customers WHERE tenant_id = ? AND subject = ?", [.text(tenantID), .text(subject)]
        ) { $0.string(0) }
    }

    func erasedOwner(tenantID: String, store: Store, originalTransactionID: String) throws(StorageError) -> String? {
        let owner = try row(
            """
            SELECT erased_owner FROM transactions
            WHERE tenant_id = ? AND store = ? AND original_transaction_id = ? AND customer_id IS NULL
            """,
            [.text(tenantID), .integer(StorageColumns.store(store)), .text(originalTransactionID)]
        ) { $0.string(0) }
        return owner?.isEmpty == false ? owner : nil
    }

    func erase(_ erasure: CustomerErasure) throws(StorageError) -> ErasureCounts {
        let tenant = SQLValue.text(erasure.tenantID)
        let customers = erasure.customerIDs.map(SQLValue.integer)
        let inCustomers = Self.placeholders(customers.count)
        let ids = erasure.appUserIDs.map(SQLValue.text)
        let inIDs = Self.placeholders(ids.count)
        let owned = "SELECT store, original_transaction_id FROM transactions WHERE tenant_id = ? AND customer_id IN \(inCustomers)"
        var counts = ErasureCounts()

        // Other customers' history names the person where a transfer or merge involved them: the webhooks about
        // those events go (found by the ID they carry, also once retention removed the event), and the events keep
        // their change without the ID (reasons quote it: 'ID').
        counts.webhookDeliveries += try run(
            "DELETE FROM webhook_deliveries WHERE tenant_id = ? AND related_app_user_id IN \(inIDs)", [tenant] + ids)
        for id in erasure.appUserIDs {
            _ = try run(
                """
                UPDATE events SET related_app_user_id = '', reason = REPLACE(reason, ?, ?)
                WHERE tenant_id = ? AND related_app_user_id = ?
                """,
                [.text("'\(id)'"), .text("'(erased)'"), tenant, .text(id)])
        }
        counts.webhookDeliveries += try run(
            "DELETE FROM webhook_deliveries WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
        counts.events = try run(
            "DELETE FROM events WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
        for table in ["customer_entitlements", "customer_attributes", "offer_signatures", "grants"] {
            _ = try run("DELETE FROM \(table) WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
        }
        _ = try run(
            """
            DELETE FROM redemption_codes WHERE tenant_id = ? AND (used_by IN \(inIDs)
                OR (store, original_transaction_id) IN (\(owned)))
            """,
            [tenant] + ids + [tenant] + customers)
        _ = try run(
            """
            UPDATE purchase_references SET app_user_id = ''
            WHERE tenant_id = ? AND (app_user_id IN \(inIDs) OR (store, original_transaction_id) IN (\(owned)))
            """,
            [tenant] + ids + [tenant] + customers)
        // An export's entry named the person; it names the hash now.
        for id in erasure.appUserIDs {
            _ = try run(
                "UPDATE audit_log SET subject = ? WHERE tenant_id = ? AND subject = ?",
                [.text(erasure.tombstone), tenant, .text(id)])
        }
        if !erasure.appAccountTokens.isEmpty {
            // Stores give tokens in either case; ours are lower-case.
            _ = try run(
                "UPDATE transactions SET app_account_token = '' WHERE tenant_id = ? AND lower(app_account_token) IN "
                    + Self.placeholders(erasure.appAccountTokens.count),
                [tenant] + erasure.appAccountTokens.map(SQLValue.text))
        }
        if erasure.erasesAccountingRecords {
            _ = try run(
                """
                DELETE FROM subscription_events WHERE tenant_id = ? AND original_transaction_id IN (
                    SELECT original_transaction_id FROM transactions WHERE tenant_id = ? AND customer_id IN \(inCustomers))
                """,
                [tenant, tenant] + customers)
            _ = try run(
                "DELETE FROM purchase_references WHERE tenant_id = ? AND (store, original_transaction_id) IN (\(owned))",
                [tenant, tenant] + customers)
            for table in ["revenue_ledger", "billing_observations"] {
                _ = try run("DELETE FROM \(table) WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
            }
            counts.purchasesDeleted = try run(
                "DELETE FROM transactions WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
        } else {
            for table in ["revenue_ledger", "billing_observations"] {
                _ = try run(
                    "UPDATE \(table) SET customer_id = NULL WHERE tenant_id = ? AND customer_id IN \(inCustomers)",
                    [tenant] + customers)
            }
            counts.purchasesKept = try run(
                """
                UPDATE transactions SET customer_id = NULL, app_account_token = '', erased_owner = ?
                WHERE tenant_id = ? AND customer_id IN \(inCustomers)
                """,
                [.text(erasure.tombstone), tenant] + customers)
        }
        _ = try run("DELETE FROM app_user_ids WHERE tenant_id = ? AND customer_id IN \(inCustomers)", [tenant] + customers)
        // The rows stay, named by the tombstone and resolving from no ID: a customer's database ID is never given to
        // another (SQLite would reuse the highest), so neither are the webhook event IDs made from it. `changed_at`
        // brings them to other instances' catch-up, which finds them erased.
        _ = try run(
            """
            UPDATE customers SET app_user_id = ? || '/' || CAST(id AS TEXT), is_anonymous = 1, next_change_at = NULL,
                changed_at = ?
            WHERE tenant_id = ? AND id IN \(inCustomers)
            """,
            [.text(erasure.tombstone), .time(erasure.erasedAt), tenant] + customers)
        for subject in erasure.subjects {
            try send(
                """
                INSERT INTO erased_customers (tenant_id, subject, tombstone, erased_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (tenant_id, subject) DO UPDATE SET tombstone = excluded.tombstone, erased_at = excluded.erased_at
                """,
                [tenant, .text(subject), .text(erasure.tombstone), .time(erasure.erasedAt)], unlessOneRow: nil)
        }
        return counts
    }

    /// `(?, ?, ...)` with `count` marks (at least one, so that an empty list matches nothing).
    private static func placeholders(_ count: Int) -> String {
        count == 0 ? "(NULL)" : "(" + Array(repeating: "?", count: count).joined(separator: ", ") + ")"
    }
}
