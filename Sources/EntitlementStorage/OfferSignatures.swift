import EntitlementDomain

/// `offer_signatures`: every offer signature made for a customer (``OfferSignatureRecord``), counted by the offers'
/// per-period limits.
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
            PRIMARY KEY (tenant_id, nonce)
        );
        CREATE INDEX offer_signatures_customer ON offer_signatures (tenant_id, customer_id, offer_id, signed_at);
        """
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
    }

    /// A merge's share: the survivor counts the signatures of both.
    func mergeOfferSignatures(tenantID: String, from: Int64, into: Int64) throws(StorageError) {
        _ = try run(
            "UPDATE offer_signatures SET customer_id = ? WHERE tenant_id = ? AND customer_id = ?",
            [.integer(into), .text(tenantID), .integer(from)])
    }
}
