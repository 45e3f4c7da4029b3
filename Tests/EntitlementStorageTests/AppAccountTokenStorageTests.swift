import EntitlementDomain
import Testing

@testable import EntitlementStorage

@Suite("App account tokens on app user IDs")
struct AppAccountTokenStorageTests {
    @Test func tokenResolvesToTheCustomerThroughAliasesAndMerges() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anon, bob) = try repository.write { transaction throws in
            (try transaction.customer("t", "$anon:1", anonymous: true), try transaction.customer("t", "bob"))
        }
        try repository.write { transaction throws in
            #expect(try transaction.recordAppAccountToken(tenantID: "t", appUserID: "$anon:1", token: "tok-anon"))
            // Written once: a second token for the same ID does not replace the first.
            #expect(try !transaction.recordAppAccountToken(tenantID: "t", appUserID: "$anon:1", token: "other"))
            #expect(try transaction.recordAppAccountToken(tenantID: "t", appUserID: "bob", token: "tok-bob"))
            #expect(try !transaction.recordAppAccountToken(tenantID: "t", appUserID: "bob", token: ""))
            #expect(throws: StorageError.conflict("")) {
                try transaction.recordAppAccountToken(tenantID: "t", appUserID: "nobody", token: "x")
            }
        }
        func lookup(_ tenant: String, _ token: String) throws -> Int64? {
            try repository.write { try $0.customerID(tenantID: tenant, appAccountToken: token) }
        }
        #expect(try lookup("t", "tok-anon") == anon.id)
        #expect(try lookup("t", "tok-bob") == bob.id)
        #expect(try lookup("t", "other") == nil)
        #expect(try lookup("t", "") == nil)
        #expect(try lookup("u", "tok-bob") == nil)  // tenants never see each other's tokens

        // The anonymous ID becomes an alias, then its customer is merged into bob's: the token follows.
        try repository.write { transaction throws in
            try transaction.setCanonicalID(tenantID: "t", customerID: anon.id, appUserID: "carol", isAnonymous: false)
        }
        #expect(try lookup("t", "tok-anon") == anon.id)
        try repository.write { try $0.merge(tenantID: "t", from: anon.id, into: bob.id) }
        #expect(try lookup("t", "tok-anon") == bob.id)
    }
}
