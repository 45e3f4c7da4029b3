import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// `offer_signatures` and `offer_totals` on each database: the limits' count, linking a redeeming transaction once,
/// a merge's share, an erasure, and tenants kept apart.
@Suite("Offer signatures")
struct OfferSignatureStorageTests {
    func signature(_ customerID: Int64, _ offerID: String, _ nonce: String, at milliseconds: Int64, tenant: String = "t")
        -> OfferSignatureRecord
    {
        OfferSignatureRecord(
            tenantID: tenant, customerID: customerID, offerID: offerID, productID: "pro.monthly", nonce: nonce,
            signedAt: time(milliseconds))
    }

    func redemption(_ customerID: Int64, transaction: String, signedNoLaterThan: Int64, offerID: String = "winback")
        -> OfferRedemption
    {
        OfferRedemption(
            tenantID: "t", customerID: customerID, offerID: offerID, productID: "pro.monthly", transactionID: transaction,
            signedNoLaterThan: time(signedNoLaterThan), redeemedAt: time(signedNoLaterThan + 1))
    }

    @Test func countsByOfferAndPeriodAndListsNewestFirst() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { transaction throws in
            let alice = try transaction.customer("t", "alice")
            try transaction.recordOfferSignature(signature(alice.id, "winback", "n1", at: 1_000))
            try transaction.recordOfferSignature(signature(alice.id, "winback", "n2", at: 2_000))
            try transaction.recordOfferSignature(signature(alice.id, "", "n3", at: 3_000))
            try transaction.recordOfferSignature(signature(alice.id, "winback", "n4", at: 3_000, tenant: "u"))
            #expect(try transaction.offerSignatureCount(tenantID: "t", customerID: alice.id, offerID: "winback", since: time(1_000)) == 2)
            return alice
        }
        #expect(try repository.offerSignatureCount(tenantID: "t", customerID: alice.id, offerID: "winback", since: time(1_001)) == 1)
        #expect(try repository.offerSignatureCount(tenantID: "t", customerID: alice.id, offerID: "", since: time(0)) == 1)
        #expect(try repository.offerSignatures(tenantID: "t", customerID: alice.id, limit: 2).map(\.nonce) == ["n3", "n2"])
        #expect(
            try repository.offerTotals() == [
                OfferTotal(tenantID: "t", offerID: "", signed: 1, redeemed: 0),
                OfferTotal(tenantID: "t", offerID: "winback", signed: 2, redeemed: 0),
                OfferTotal(tenantID: "u", offerID: "winback", signed: 1, redeemed: 0),
            ])
        // A nonce is recorded once.
        #expect(throws: StorageError.self) {
            try repository.write { try $0.recordOfferSignature(signature(alice.id, "winback", "n1", at: 4_000)) }
        }
    }

    @Test func aTransactionRedeemsTheNewestSignatureMadeBeforeItOnce() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { transaction throws in
            let alice = try transaction.customer("t", "alice")
            for (nonce, at) in [("early", 1_000), ("late", 2_000), ("after", 9_000)] {
                try transaction.recordOfferSignature(signature(alice.id, "winback", nonce, at: Int64(at)))
            }
            return alice
        }
        try repository.write { transaction throws in
            #expect(try transaction.linkOfferRedemption(redemption(alice.id, transaction: "tx1", signedNoLaterThan: 5_000)))
            // The same transaction again (a redelivery) links nothing more.
            #expect(try !transaction.linkOfferRedemption(redemption(alice.id, transaction: "tx1", signedNoLaterThan: 5_000)))
            // Another offer has no signature.
            #expect(try !transaction.linkOfferRedemption(redemption(alice.id, transaction: "tx2", signedNoLaterThan: 5_000, offerID: "other")))
            #expect(try transaction.linkOfferRedemption(redemption(alice.id, transaction: "tx3", signedNoLaterThan: 5_000)))
            // Only "after" is left, made after this transaction.
            #expect(try !transaction.linkOfferRedemption(redemption(alice.id, transaction: "tx4", signedNoLaterThan: 5_000)))
        }
        let signatures = try repository.offerSignatures(tenantID: "t", customerID: alice.id, limit: 10)
        #expect(signatures.map(\.nonce) == ["after", "late", "early"])
        #expect(signatures.map(\.redeemedTransactionID) == ["", "tx1", "tx3"])
        #expect(signatures[1].redeemedAt == time(5_001))
        #expect(try repository.offerTotals() == [OfferTotal(tenantID: "t", offerID: "winback", signed: 3, redeemed: 2)])
    }

    @Test func aMergeMovesThemAndAnErasureRemovesThemButNotTheTotals() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anonymous, alice) = try repository.write { transaction throws in
            let anonymous = try transaction.customer("t", "$anon:1")
            let alice = try transaction.customer("t", "alice")
            try transaction.recordOfferSignature(signature(anonymous.id, "winback", "n1", at: 1_000))
            try transaction.recordOfferSignature(signature(alice.id, "winback", "n2", at: 2_000))
            try transaction.merge(tenantID: "t", from: anonymous.id, into: alice.id)
            return (anonymous, alice)
        }
        #expect(try repository.offerSignatureCount(tenantID: "t", customerID: alice.id, offerID: "winback", since: time(0)) == 2)
        #expect(try repository.offerSignatureCount(tenantID: "t", customerID: anonymous.id, offerID: "winback", since: time(0)) == 0)
        try repository.write { transaction throws in
            _ = try transaction.erase(
                CustomerErasure(
                    tenantID: "t", customerIDs: [alice.id, anonymous.id], appUserIDs: ["alice", "$anon:1"],
                    appAccountTokens: [], subjects: [], tombstone: "erased_x", erasesAccountingRecords: false,
                    erasedAt: time(3_000)))
        }
        #expect(try repository.offerSignatures(tenantID: "t", customerID: alice.id, limit: 10).isEmpty)
        #expect(try repository.offerTotals() == [OfferTotal(tenantID: "t", offerID: "winback", signed: 2, redeemed: 0)])
    }
}
