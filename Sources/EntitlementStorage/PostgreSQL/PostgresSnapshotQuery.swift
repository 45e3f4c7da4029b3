import EntitlementDomain

/// A customer's snapshot (its row, aliases, grants and purchases) in one PostgreSQL statement, where the shared
/// queries take four: every write reads the snapshot of each customer it changes, twice (before the change and when
/// it records the event), so on a database across a socket this is most of a write's round trips.
///
/// One `UNION ALL` of the four, each row led by its part and the part's own order, every column as text (what
/// PostgreSQL sends anyway in text mode, so each part decodes as its own query's row would) and padded with NULLs to
/// the widest part. The customer's row is read (and locked) once, in a `WITH`, and the other parts join it.
enum PostgresSnapshotQuery {
    enum Part: Int64 {
        case customer = 0, alias, grant, purchase
    }

    /// Columns before each part's own: the part, and two that order its rows.
    static let leadingColumns = 3

    static let byAppUserID = sql(customerFrom: appUserIDMatch, locking: false)
    static let byAppUserIDLocking = sql(customerFrom: appUserIDMatch, locking: true)
    static let byID = sql(customerFrom: idMatch, locking: false)
    static let byIDLocking = sql(customerFrom: idMatch, locking: true)

    /// The customer an app user ID (canonical or alias) resolves to, as ``SQLExecutor/customer(tenantID:appUserID:)``
    /// (which says why the join names no tenant).
    private static let appUserIDMatch = """
        FROM app_user_ids a JOIN customers c ON c.id = a.customer_id
        WHERE a.tenant_id = ? AND a.app_user_id = ?
        """
    private static let idMatch = "FROM customers c WHERE c.tenant_id = ? AND c.id = ?"

    private static func sql(customerFrom: String, locking: Bool) -> String {
        let customer = columns(StorageSQL.customerColumns, of: nil)
        let grant = columns(StorageSQL.grantColumns, of: "g")
        let purchase = columns(StorageSQL.purchaseColumns, of: "t")
        let width = max(customer.count, 1, grant.count, purchase.count)
        func padded(_ columns: [String]) -> String {
            (columns + Array(repeating: "NULL", count: width - columns.count)).joined(separator: ", ")
        }
        return """
            WITH c AS (SELECT \(StorageSQL.customerColumns) \(customerFrom)\(locking ? " FOR UPDATE OF c" : ""))
            SELECT \(Part.customer.rawValue), 0::bigint, 0::bigint, \(padded(customer)) FROM c
            UNION ALL
            SELECT \(Part.alias.rawValue), a.added_at, a.rowid, \(padded(["a.app_user_id"]))
            FROM app_user_ids a JOIN c ON a.tenant_id = c.tenant_id AND a.customer_id = c.id
            WHERE a.app_user_id <> c.app_user_id
            UNION ALL
            SELECT \(Part.grant.rawValue), g.rowid, 0::bigint, \(padded(grant))
            FROM grants g JOIN c ON g.tenant_id = c.tenant_id AND g.customer_id = c.id
            UNION ALL
            SELECT \(Part.purchase.rawValue), t.rowid, 0::bigint, \(padded(purchase))
            FROM transactions t JOIN c ON t.tenant_id = c.tenant_id AND t.customer_id = c.id
            ORDER BY 1, 2, 3
            """
    }

    /// `list`'s columns as text, qualified by `alias` (nil: the CTE's, already qualified `c.`).
    private static func columns(_ list: String, of alias: String?) -> [String] {
        list.split(separator: ", ").map { column in
            let name = alias.map { "\($0).\(column)" } ?? String(column)
            return name + "::text"
        }
    }
}

extension PostgresExecutor {
    func snapshot(tenantID: String, appUserID: String) throws(StorageError) -> CustomerSnapshot? {
        try snapshot(
            locksRows ? PostgresSnapshotQuery.byAppUserIDLocking : PostgresSnapshotQuery.byAppUserID,
            [.text(tenantID), .text(appUserID)])
    }

    func snapshot(tenantID: String, customerID: Int64) throws(StorageError) -> CustomerSnapshot? {
        try snapshot(
            locksRows ? PostgresSnapshotQuery.byIDLocking : PostgresSnapshotQuery.byID,
            [.text(tenantID), .integer(customerID)])
    }

    private func snapshot(_ sql: String, _ bindings: [SQLValue]) throws(StorageError) -> CustomerSnapshot? {
        var snapshot: CustomerSnapshot?
        for row in try rows(sql, bindings, { $0 }) {
            let part = PostgresSnapshotQuery.Part(rawValue: row.int64(0))
            let columns = PostgresRow(values: Array(row.values.dropFirst(PostgresSnapshotQuery.leadingColumns)))
            switch part {
            case .customer:
                snapshot = CustomerSnapshot(customer: StorageSQL.customer(from: columns), aliases: [], grants: [], purchases: [])
            case .alias: snapshot?.aliases.append(columns.string(0))
            case .grant: snapshot?.grants.append(StorageSQL.grant(from: columns))
            case .purchase: snapshot?.purchases.append(try StorageSQL.purchase(from: columns))
            case nil: throw .corrupt("PostgreSQL: a snapshot row of no known part (\(row.int64(0)))")
            }
        }
        return snapshot
    }
}
