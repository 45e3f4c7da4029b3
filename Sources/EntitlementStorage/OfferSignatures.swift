import EntitlementDomain

/// `offer_signatures`: every offer signature made for a customer (``OfferSignatureRecord``), counted by the offers'
/// per-period limits and linked to the transaction that redeemed it; `offer_totals`: signatures and redemptions per
/// offer, for the metrics; `transactions.sale_offer_id`: the store's identifier of a transaction's offer.
enum OfferSignatures {
    /// Version 27 on SQLite, 18 on PostgreSQL.
    static func migrationSQL(integer: String) -> String {
        """
        CREATE TABLE offer_signatures (
            tenant_id TEXT NOT NULL,
            customer_id \(integer) NOT NULL,
            -- Empty for an introductory offer eligibility signature.
            offer_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            nonce TEXT NOT NULL,
            signed_at \(integer) NOT NULL,
            -- The App Store transaction that redeemed the offer; empty until one did.
            redeemed_transaction_id TEXT NOT NULL DEFAULT '',
            redeemed_at \(integer),
            PRIMARY KEY (tenant_id, nonce)
        );
        CREATE INDEX offer_signatures_customer ON offer_signatures (tenant_id, customer_id, offer_id, signed_at);
        CREATE INDEX offer_signatures_redeemed ON offer_signatures (tenant_id, redeemed_transaction_id)
            WHERE redeemed_transaction_id <> '';
        CREATE TABLE offer_totals (
            tenant_id TEXT NOT NULL,
            offer_id TEXT NOT NULL,
            signed \(integer) NOT NULL,
            redeemed \(integer) NOT NULL,
            PRIMARY KEY (tenant_id, offer_id)
        );
        ALTER TABLE transactions ADD COLUMN sale_offer_id TEXT NOT NULL DEFAULT '';
        """
    }

    static let columns = "offer_id, product_id, nonce, signed_at, redeemed_transaction_id, redeemed_at"

    static func record(tenantID: String, customerID: Int64, _ row: some SQLRow) -> OfferSignatureRecord {
        var record = OfferSignatureRecord(
            tenantID: tenantID, customerID: customerID, offerID: row.string(0), productID: row.string(1),
            nonce: row.string(2), signedAt: UnixTime(milliseconds: row.int64(3)))
        record.redeemedTransactionID = row.string(4)
        record.redeemedAt = row.optionalTime(5)
        return record
    }
}

extension SQLExecutor {
    func offerSignatureCount(tenantID: String, customerID: Int64, offerID: String, since: UnixTime) throws(StorageError)
        -> Int
    {
        Int(
            try row(
                """
                SELECT count(*) FROM offer_signatures
                WHERE tenant_id = ? AND customer_id = ? AND offer_id = ? AND signed_at >= ?
                """,
                [.text(tenantID), .integer(customerID), .text(offerID), .time(since)]
            ) { $0.int64(0) } ?? 0)
    }

    /// The customer's newest signatures first.
    func offerSignatures(tenantID: String, customerID: Int64, limit: Int) throws(StorageError) -> [OfferSignatureRecord] {
        try rows(
            """
            SELECT \(OfferSignatures.columns) FROM offer_signatures WHERE tenant_id = ? AND customer_id = ?
            ORDER BY signed_at DESC, nonce LIMIT ?
            """,
            [.text(tenantID), .integer(customerID), .integer(Int64(limit))]
        ) { row in OfferSignatures.record(tenantID: tenantID, customerID: customerID, row) }
    }

    func recordOfferSignature(_ record: OfferSignatureRecord) throws(StorageError) {
        try send(
            """
            INSERT INTO offer_signatures (tenant_id, customer_id, offer_id, product_id, nonce, signed_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(record.tenantID), .integer(record.customerID), .text(record.offerID), .text(record.productID),
                .text(record.nonce), .time(record.signedAt),
            ], unlessOneRow: nil)
        try addOfferTotals(tenantID: record.tenantID, offerID: record.offerID, signed: 1, redeemed: 0)
    }

    func linkOfferRedemption(_ redemption: OfferRedemption) throws(StorageError) -> Bool {
        let linked = try run(
            """
            UPDATE offer_signatures SET redeemed_transaction_id = ?, redeemed_at = ?
            WHERE tenant_id = ? AND redeemed_transaction_id = '' AND nonce = (
                SELECT nonce FROM offer_signatures
                WHERE tenant_id = ? AND customer_id = ? AND offer_id = ? AND product_id = ?
                    AND redeemed_transaction_id = '' AND signed_at <= ?
                ORDER BY signed_at DESC, nonce LIMIT 1)
            AND NOT EXISTS (SELECT 1 FROM offer_signatures WHERE tenant_id = ? AND redeemed_transaction_id = ?)
            """,
            [
                .text(redemption.transactionID), .time(redemption.redeemedAt), .text(redemption.tenantID),
                .text(redemption.tenantID), .integer(redemption.customerID), .text(redemption.offerID),
                .text(redemption.productID), .time(redemption.signedNoLaterThan), .text(redemption.tenantID),
                .text(redemption.transactionID),
            ]) == 1
        if linked { try addOfferTotals(tenantID: redemption.tenantID, offerID: redemption.offerID, signed: 0, redeemed: 1) }
        return linked
    }

    func offerTotals() throws(StorageError) -> [OfferTotal] {
        try rows("SELECT tenant_id, offer_id, signed, redeemed FROM offer_totals ORDER BY tenant_id, offer_id", []) { row in
            OfferTotal(tenantID: row.string(0), offerID: row.string(1), signed: row.int64(2), redeemed: row.int64(3))
        }
    }

    private func addOfferTotals(tenantID: String, offerID: String, signed: Int64, redeemed: Int64) throws(StorageError) {
        try send(
            """
            INSERT INTO offer_totals (tenant_id, offer_id, signed, redeemed) VALUES (?, ?, ?, ?)
            ON CONFLICT (tenant_id, offer_id) DO UPDATE SET
                signed = offer_totals.signed + excluded.signed, redeemed = offer_totals.redeemed + excluded.redeemed
            """,
            [.text(tenantID), .text(offerID), .integer(signed), .integer(redeemed)], unlessOneRow: nil)
    }

    /// A merge's share: the survivor counts the signatures of both.
    func mergeOfferSignatures(tenantID: String, from: Int64, into: Int64) throws(StorageError) {
        _ = try run(
            "UPDATE offer_signatures SET customer_id = ? WHERE tenant_id = ? AND customer_id = ?",
            [.integer(into), .text(tenantID), .integer(from)])
    }
}
