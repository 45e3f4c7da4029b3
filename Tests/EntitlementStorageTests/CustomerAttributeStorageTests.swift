import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// `customer_attributes` on each database: upserts and removals, a merge's share, the search by `$email`, and tenants
/// kept apart.
@Suite("Customer attributes")
struct CustomerAttributeStorageTests {
    func attribute(_ key: String, _ value: String, at milliseconds: Int64 = 1_000) -> CustomerAttribute {
        CustomerAttribute(key: key, value: value, updatedAt: time(milliseconds))
    }

    @Test func setReplacesAndRemoveDeletesOneKey() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let alice = try repository.write { transaction throws in
            let alice = try transaction.customer("t", "alice")
            try transaction.setAttribute(tenantID: "t", customerID: alice.id, attribute("plan", "silver"))
            try transaction.setAttribute(tenantID: "t", customerID: alice.id, attribute("$email", "a@example.com"))
            try transaction.setAttribute(tenantID: "t", customerID: alice.id, attribute("plan", "gold", at: 2_000))
            return alice
        }
        #expect(
            try repository.attributes(tenantID: "t", customerID: alice.id)
                == [attribute("$email", "a@example.com"), attribute("plan", "gold", at: 2_000)])
        try repository.write { transaction throws in
            try transaction.removeAttribute(tenantID: "t", customerID: alice.id, key: "plan")
            try transaction.removeAttribute(tenantID: "t", customerID: alice.id, key: "absent")
        }
        #expect(try repository.attributes(tenantID: "t", customerID: alice.id) == [attribute("$email", "a@example.com")])
        // Another tenant reads nothing of it.
        #expect(try repository.attributes(tenantID: "u", customerID: alice.id).isEmpty)
    }

    @Test func aMergeMovesTheKeysTheSurvivorLacks() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let (anonymous, alice) = try repository.write { transaction throws in
            let anonymous = try transaction.customer("t", "$anon:1")
            let alice = try transaction.customer("t", "alice")
            try transaction.setAttribute(tenantID: "t", customerID: anonymous.id, attribute("$email", "old@example.com"))
            try transaction.setAttribute(tenantID: "t", customerID: anonymous.id, attribute("$locale", "de"))
            try transaction.setAttribute(tenantID: "t", customerID: alice.id, attribute("$email", "alice@example.com"))
            try transaction.merge(tenantID: "t", from: anonymous.id, into: alice.id)
            return (anonymous, alice)
        }
        #expect(
            try repository.attributes(tenantID: "t", customerID: alice.id)
                == [attribute("$email", "alice@example.com"), attribute("$locale", "de")])
        #expect(try repository.attributes(tenantID: "t", customerID: anonymous.id).isEmpty)
        #expect(try repository.customerMatches(tenantID: "t", id: "old@example.com", limit: 20).isEmpty)
    }

    @Test func emailsAreFoundIgnoringCaseAfterIDsAndInTheirTenantOnly() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        try repository.write { transaction throws in
            let named = try transaction.customer("t", "Ana@Example.com")
            let ana = try transaction.customer("t", "ana")
            let other = try transaction.customer("u", "ana")
            for (tenant, customer, value) in [
                ("t", ana.id, "ANA@example.com"), ("t", named.id, "ana@example.com"), ("u", other.id, "ana@example.com"),
            ] {
                try transaction.setAttribute(tenantID: tenant, customerID: customer, attribute("$email", value))
            }
            try transaction.setAttribute(tenantID: "t", customerID: ana.id, attribute("backup", "ana@example.com"))
        }
        #expect(
            try repository.customerMatches(tenantID: "t", id: "Ana@Example.com", limit: 20) == [
                // Found by its ID, so not again by its address.
                CustomerMatch(appUserID: "Ana@Example.com", matchedBy: .appUserID),
                CustomerMatch(appUserID: "ana", matchedBy: .email),
            ])
        #expect(
            try repository.customerMatches(tenantID: "u", id: "ANA@EXAMPLE.COM", limit: 20)
                == [CustomerMatch(appUserID: "ana", matchedBy: .email)])
        #expect(try repository.customerMatches(tenantID: "v", id: "ana@example.com", limit: 20).isEmpty)
    }
}
