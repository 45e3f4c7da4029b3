/// Grants: entitlements given by an operator or a redemption code rather than bought in a store.
public protocol GrantReads: Sendable {
    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord?
}

/// Grants inside a write transaction.
public protocol GrantStorage {
    func grant(tenantID: String, grantID: String) throws(StorageError) -> GrantRecord?
    func grant(tenantID: String, idempotencyKey: String) throws(StorageError) -> GrantRecord?
    func insertGrant(_ grant: GrantRecord) throws(StorageError)
    func updateGrant(_ grant: GrantRecord) throws(StorageError)
}
