import EntitlementDomain

/// `entitlementd purge-tenant`: every row of one tenant, in every table of the schema (the tables `migrate-store`
/// copies, each keyed by tenant), counted or deleted.
extension SQLRepository {
    /// One table's rows of the tenant.
    public struct PurgedTable: Sendable, Equatable {
        public var table: String
        public var rows: Int
    }

    /// The tenant's rows per table; with `dryRun` only counted, else deleted in one transaction (children before the
    /// rows they refer to) and, on SQLite, cleared from the files (``clearDeletedBytes()``).
    public func purgeTenant(_ tenantID: String, dryRun: Bool) throws -> [PurgedTable] {
        let tables = CopiedTable.all.map(\.name).reversed()
        guard !dryRun else {
            return try database.read(consistent: true) { (db) throws(StorageError) in
                try tables.map { (table) throws(StorageError) in
                    PurgedTable(
                        table: table,
                        rows: Int(try db.row("SELECT count(*) FROM \(table) WHERE tenant_id = ?", [.text(tenantID)]) { $0.int64(0) } ?? 0))
                }
            }
        }
        let purged = try write { transaction throws in
            guard let sql = transaction as? any SQLTransactionAccess else {
                throw StorageError.conflict("purge-tenant needs a SQL transaction")
            }
            return try tables.map { (table) throws(StorageError) in
                PurgedTable(table: table, rows: try sql.executor.run("DELETE FROM \(table) WHERE tenant_id = ?", [.text(tenantID)]))
            }
        }
        try clearDeletedBytes()
        return purged
    }
}

/// A write transaction's own connection, for statements no subject's protocol has (a tenant's purge).
protocol SQLTransactionAccess {
    var executor: any SQLExecutor { get }
}

extension SQLStorageTransaction: SQLTransactionAccess {
    var executor: any SQLExecutor { db }
}
