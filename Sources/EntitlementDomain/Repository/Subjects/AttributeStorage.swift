/// Customer attributes: what the app and the tenant's backend say about the person (``CustomerAttribute``).
public protocol AttributeReads: Sendable {
    /// The customer's attributes, by key.
    func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute]
}

/// Customer attributes inside a write transaction. A merge (``CustomerStorage/merge(tenantID:from:into:)``) moves the
/// attributes whose key the surviving customer lacks.
public protocol AttributeStorage {
    func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute]
    /// Sets the attribute's value, adding the key when the customer lacks it.
    func setAttribute(tenantID: String, customerID: Int64, _ attribute: CustomerAttribute) throws(StorageError)
    func removeAttribute(tenantID: String, customerID: Int64, key: String) throws(StorageError)
}
