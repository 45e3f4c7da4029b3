import EntitlementClient
import EntitlementsKit
import EntitlementsProto
import Foundation
import Testing
import TestSupport

/// `setAttributes` against the real server over each transport: the SDK's user, removal by nil, the server's refusals.
@Suite struct EntitlementsAttributeTests {
    @Test(arguments: TransportKind.allCases)
    func theSDKSetsAndRemovesItsUsersAttributes(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))

        let after = try await entitlements.setAttributes([
            Entitlements.AttributeKey.email: "Kit@Example.com", Entitlements.AttributeKey.locale: "en_gb",
        ])
        #expect(after == ["$email": "Kit@Example.com", "$locale": "en-GB"])
        #expect(try await entitlements.setAttributes([Entitlements.AttributeKey.locale: nil]) == ["$email": "Kit@Example.com"])

        let admin = try EntitlementsLiveTests.admin(server)
        let customer = try await admin.getCustomer(appUserID: user)
        #expect(customer.attributes.map(\.key) == ["$email"])
        let found = try await admin.findCustomers("kit@example.com")
        #expect(found.matches.map(\.appUserID) == [user])

        // A key apps may not write, and a bad address: refused, nothing changed.
        await #expect { try await entitlements.setAttributes(["plan": "gold"]) } throws: {
            ($0 as? EntitlementsError)?.code == .permissionDenied
        }
        await #expect { try await entitlements.setAttributes([Entitlements.AttributeKey.email: "not-an-address"]) } throws: {
            ($0 as? EntitlementsError)?.code == .invalidArgument
        }
        #expect(try await admin.getCustomer(appUserID: user).attributes == customer.attributes)
    }
}
