public import EntitlementDomain

/// Offer signatures in memory, as `offer_signatures` and `offer_totals` keep them.
extension InMemoryTables {
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) -> Int {
        (offerSignatures[CustomerKey(tenantID: tenantID, customerID: customerID)] ?? [])
            .count { $0.offerID == offerID && $0.signedAt >= since }
    }

    mutating func addOfferTotals(tenantID: String, offerID: String, signed: Int64, redeemed: Int64) {
        let key = NameKey(tenantID: tenantID, name: offerID)
        var total = offerTotals[key] ?? OfferTotal(tenantID: tenantID, offerID: offerID, signed: 0, redeemed: 0)
        total.signed += signed
        total.redeemed += redeemed
        offerTotals[key] = total
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
        tables.addOfferTotals(tenantID: record.tenantID, offerID: record.offerID, signed: 1, redeemed: 0)
    }

    func linkOfferRedemption(_ redemption: OfferRedemption) throws(StorageError) -> Bool {
        let taken = tables.offerSignatures.contains { key, records in
            key.tenantID == redemption.tenantID && records.contains { $0.redeemedTransactionID == redemption.transactionID }
        }
        let key = InMemoryTables.CustomerKey(tenantID: redemption.tenantID, customerID: redemption.customerID)
        guard !taken, let records = tables.offerSignatures[key] else { return false }
        let candidates = records.indices.filter { index in
            let record = records[index]
            return record.offerID == redemption.offerID && record.productID == redemption.productID
                && record.redeemedTransactionID.isEmpty && record.signedAt <= redemption.signedNoLaterThan
        }
        // Newest first, then by nonce, as GetCustomer lists them.
        guard let newest = candidates.min(by: { (records[$1].signedAt, records[$0].nonce) < (records[$0].signedAt, records[$1].nonce) })
        else { return false }
        tables.offerSignatures[key]![newest].redeemedTransactionID = redemption.transactionID
        tables.offerSignatures[key]![newest].redeemedAt = redemption.redeemedAt
        tables.addOfferTotals(tenantID: redemption.tenantID, offerID: redemption.offerID, signed: 0, redeemed: 1)
        return true
    }
}

extension InMemoryRepository {
    public func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime)
        throws(StorageError) -> Int
    {
        read { $0.offerSignatureCount(tenantID: tenantID, customerID: customerID, offerID: offerID, since: since) }
    }

    public func offerSignatures(tenantID: String, customerID: Int64, limit: Int) throws(StorageError)
        -> [OfferSignatureRecord]
    {
        read { tables in
            Array(
                (tables.offerSignatures[InMemoryTables.CustomerKey(tenantID: tenantID, customerID: customerID)] ?? [])
                    .sorted { ($0.signedAt, $1.nonce) > ($1.signedAt, $0.nonce) }.prefix(limit))
        }
    }

    public func offerTotals() throws(StorageError) -> [OfferTotal] {
        read { tables in tables.offerTotals.values.sorted { ($0.tenantID, $0.offerID) < ($1.tenantID, $1.offerID) } }
    }
}
