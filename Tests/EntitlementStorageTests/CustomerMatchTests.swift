import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// `customerMatches` (FindCustomers): each purchase once, by the strongest way it matched.
@Suite("Customer search")
struct CustomerMatchTests {
    /// guest's one-time web purchase: its payment intent is both its original transaction ID and one of its
    /// references (with the checkout session); erin's subscription: its latest invoice is both its transaction ID and
    /// a reference.
    static func repository(_ database: TemporaryDatabase) throws -> SQLRepository {
        let repository = try database.open()
        try repository.write { transaction throws in
            let guest = try transaction.customer("t", "guest")
            let erin = try transaction.customer("t", "erin")
            try transaction.savePurchase(makePurchase("pi_guest", tenant: "t", customer: guest.id, store: .stripe))
            try transaction.savePurchase(
                makePurchase("sub_erin", tenant: "t", customer: erin.id, store: .stripe, transactionID: "in_erin"))
            for (reference, original) in [
                ("pi_guest", "pi_guest"), ("cs_guest", "pi_guest"), ("in_erin", "sub_erin"), ("cus_erin", "sub_erin"),
            ] {
                try transaction.savePurchaseReference(
                    PurchaseReference(store: .stripe, referenceID: reference, originalTransactionID: original, appUserID: ""),
                    tenantID: "t", at: time(1_000))
            }
        }
        return repository
    }

    @Test func anIDThatIsAPurchaseAndOneOfItsReferencesListsThePurchaseOnce() throws {
        let database = try TemporaryDatabase()
        let repository = try Self.repository(database)
        let expected: [(id: String, owner: String, matchedBy: CustomerMatch.MatchedBy, original: String)] = [
            ("pi_guest", "guest", .originalTransactionID, "pi_guest"),
            ("in_erin", "erin", .transactionID, "sub_erin"),
            // References that are nothing else still find their purchase.
            ("cs_guest", "guest", .storeReference, "pi_guest"),
            ("cus_erin", "erin", .storeReference, "sub_erin"),
        ]
        for (id, owner, matchedBy, original) in expected {
            #expect(
                try repository.customerMatches(tenantID: "t", id: id, limit: 20)
                    == [CustomerMatch(appUserID: owner, matchedBy: matchedBy, store: .stripe, originalTransactionID: original)],
                "\(id)")
        }
    }
}
