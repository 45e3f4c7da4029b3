import EntitlementDomain
import Foundation
import Testing

@Suite struct AppAccountTokenTests {
    @Test func derivationIsFixed() {
        // Python: uuid.UUID(bytes=sha256(b"entitlementd app_account_token v1\0acme\0alice")[:16] with version 8 and
        // the RFC variant set).
        #expect(AppAccountToken.derive(tenantID: "acme", appUserID: "alice") == "620a3d6a-4ec4-8d63-9bb6-311178d6c6db")
    }

    @Test func tokenIsALowercaseVersion8UUID() throws {
        for (tenant, user) in [("acme", "alice"), ("acme", "$anon:1"), ("t", ""), ("globex", "ünïcødé")] {
            let token = AppAccountToken.derive(tenantID: tenant, appUserID: user)
            #expect(token == token.lowercased())
            let parsed = try #require(UUID(uuidString: token))
            #expect(parsed.uuidString.lowercased() == token)
            let bytes = withUnsafeBytes(of: parsed.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 8)
            #expect(bytes[8] >> 6 == 0b10)
        }
    }

    @Test func tokenDependsOnTenantAndUserAndNotOnAmbiguousJoins() {
        let alice = AppAccountToken.derive(tenantID: "acme", appUserID: "alice")
        #expect(AppAccountToken.derive(tenantID: "acme", appUserID: "alice") == alice)
        #expect(AppAccountToken.derive(tenantID: "globex", appUserID: "alice") != alice)
        #expect(AppAccountToken.derive(tenantID: "acme", appUserID: "bob") != alice)
        #expect(AppAccountToken.derive(tenantID: "ac", appUserID: "mealice") != alice)
    }
}
