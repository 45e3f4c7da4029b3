import EntitlementClient
import EntitlementsKit
import EntitlementsProto
import Foundation
import RPCCore
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

/// An erased user's SDK, over each transport: its stream ends, it logs out, and the erased ID stays erased.
@Suite struct EntitlementsErasureTests {
    @Test(arguments: TransportKind.allCases)
    func theSDKOfAnErasedUserLogsOutAndDoesNotBringTheIDBack(_ kind: TransportKind) async throws {
        let server = try EntitlementTestServer()
        defer { server.stop() }
        let admin = try EntitlementsLiveTests.admin(server)
        let (user, cache) = try EntitlementsLiveTests.returningUser()
        let entitlements = Entitlements(configuration: .init(transport: try kind.make(server), cache: cache))
        let updates = await UpdateRecorder(entitlements)
        await entitlements.start()
        _ = try await admin.grantEntitlement(appUserID: user, entitlementID: "pro", duration: .seconds(3600))
        _ = try await updates.first { $0.snapshot.status.isActive("pro") }

        let deleted = try await admin.deleteCustomer(appUserID: user, confirmation: user)
        #expect(deleted.subject.hasPrefix("erased_") && !deleted.alreadyDeleted)
        let anonymous = try await updates.first { $0.snapshot.appUserID != user }
        #expect(anonymous.snapshot.appUserID.hasPrefix("$anon:") && anonymous.snapshot.status == .inactive)
        #expect(await entitlements.isAnonymous)
        // The erased ID was not identified again.
        await #expect { try await admin.getCustomer(appUserID: user) } throws: { ($0 as? RPCError)?.code == .notFound }
    }
}
