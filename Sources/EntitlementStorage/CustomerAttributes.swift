import EntitlementDomain

/// `customer_attributes`: each customer's attributes (``CustomerAttribute``), one row per key, with the value folded
/// for `FindCustomers` by `$email`.
enum CustomerAttributes {
    /// Version 23 on SQLite, 14 on PostgreSQL.
    static func migrationSQL(integer: String) -> String {
        """
        CREATE TABLE customer_attributes (
            tenant_id TEXT NOT NULL,
            customer_id \(integer) NOT NULL,
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            -- The value lowercased, compared by FindCustomers (only $email's is indexed).
            folded_value TEXT NOT NULL,
            updated_at \(integer) NOT NULL,
            PRIMARY KEY (tenant_id, customer_id, key)
        );
        CREATE INDEX customer_attributes_email ON customer_attributes (tenant_id, folded_value) WHERE key = '$email';
        """
    }

    /// The customers whose `$email` folds to `folded`, as FindCustomers lists them (1 sorts them after IDs).
    static let emailMatchSQL = """
        SELECT c.app_user_id FROM customer_attributes a JOIN customers c ON c.tenant_id = a.tenant_id AND c.id = a.customer_id
        WHERE a.tenant_id = ? AND a.key = '$email' AND a.folded_value = ?
        ORDER BY a.customer_id LIMIT ?
        """
}

extension SQLExecutor {
    func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute] {
        try rows(
            "SELECT key, value, updated_at FROM customer_attributes WHERE tenant_id = ? AND customer_id = ? ORDER BY key",
            [.text(tenantID), .integer(customerID)]
        ) { row in
            CustomerAttribute(key: row.string(0), value: row.string(1), updatedAt: UnixTime(milliseconds: row.int64(2)))
        }
    }

    func setAttribute(tenantID: String, customerID: Int64, _ attribute: CustomerAttribute) throws(StorageError) {
        try send(
            """
            INSERT INTO customer_attributes (tenant_id, customer_id, key, value, folded_value, updated_at)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (tenant_id, customer_id, key) DO UPDATE SET
                value = excluded.value, folded_value = excluded.folded_value, updated_at = excluded.updated_at
            """,
            [
                .text(tenantID), .integer(customerID), .text(attribute.key), .text(attribute.value),
                .text(attribute.foldedValue), .time(attribute.updatedAt),
            ], unlessOneRow: nil)
    }

    func removeAttribute(tenantID: String, customerID: Int64, key: String) throws(StorageError) {
        try send(
            "DELETE FROM customer_attributes WHERE tenant_id = ? AND customer_id = ? AND key = ?",
            [.text(tenantID), .integer(customerID), .text(key)], unlessOneRow: nil)
    }

    /// A merge's share: `into` keeps its own value of a key both have; `from` keeps none.
    func mergeAttributes(tenantID: String, from: Int64, into: Int64) throws(StorageError) {
        _ = try run(
            """
            UPDATE customer_attributes SET customer_id = ?
            WHERE tenant_id = ? AND customer_id = ? AND key NOT IN (
                SELECT key FROM customer_attributes WHERE tenant_id = ? AND customer_id = ?)
            """,
            [.integer(into), .text(tenantID), .integer(from), .text(tenantID), .integer(into)])
        _ = try run(
            "DELETE FROM customer_attributes WHERE tenant_id = ? AND customer_id = ?", [.text(tenantID), .integer(from)])
    }
}
