public import EntitlementDomain

/// Offer signatures in memory, as `offer_signatures` keeps them.
extension InMemoryTables {
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) -> Int {
        (offerSignatures[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? [])
            .count { $0.offerID == offerID && $0.signedAt >= since }
    }
}

extension InMemoryTransaction {
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    {
        tables.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since)
    }

    func recordOfferSignature(_ record: OfferSignatureRecord) throws(StorageError) {
        let key = InMemoryTables.CustomerKey(tenantID: record.tenantID, customerID: record.customerID)
        tables.offerSignatures[key, default: []].append(record)
    }
}

extension InMemoryRepository {
    public func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime)
        throws(StorageError) -> Int
    {
        read { $0.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since) }
    }
}
