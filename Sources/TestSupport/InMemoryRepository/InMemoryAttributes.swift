public import EntitlementDomain

/// Customer attributes in memory, as `customer_attributes` keeps them.
extension InMemoryTables {
    func attributes(tenantID: String, customerID: Int64) -> [CustomerAttribute] {
        (attributes[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? [:]).values.sorted { $0.key < $1.key }
    }

    /// The customers whose `$email` folds to `folded`, in customer ID order.
    func customerIDs(tenantID: String, emailFoldedTo folded: String) -> [Int64] {
        attributes.filter { key, attributes in
            key.tenantID == tenantID && attributes[AttributeRules.email]?.foldedValue == folded
        }.map(\.key.customerID).sorted()
    }

    /// `into` keeps its own value of a key both have; `from` keeps none.
    mutating func mergeAttributes(tenantID: String, from: Int64, into: Int64) {
        let source = CustomerKey(tenantID: tenantID, customerID: from)
        let target = CustomerKey(tenantID: tenantID, customerID: into)
        guard let moved = attributes.removeValue(forKey: source) else { return }
        attributes[target, default: [:]].merge(moved) { kept, _ in kept }
    }
}

extension InMemoryTransaction {
    func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute] {
        tables.attributes(tenantID: tenantID, customerID: customerID)
    }

    func setAttribute(tenantID: String, customerID: Int64, _ attribute: CustomerAttribute) throws(StorageError) {
        tables.attributes[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID), default: [:]][
            attribute.key] = attribute
    }

    func removeAttribute(tenantID: String, customerID: Int64, key: String) throws(StorageError) {
        tables.attributes[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID)]?[key] = nil
    }
}

extension InMemoryRepository {
    public func attributes(tenantID: String, customerID: Int64) throws(StorageError) -> [CustomerAttribute] {
        read { $0.attributes(tenantID: tenantID, customerID: customerID) }
    }
}
