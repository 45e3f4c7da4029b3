import CivilCalendar
import EntitlementClient
import EntitlementsProto
import ProtobufWire
import RPCCore
import StandardServices
import Testing
import TestSupport

/// Identify, SyncStatus and the admin calls through the real server and the Swift client.
@Suite struct IdentifyAndSyncTests {
    @Test func serverIsHealthy() async throws {
        try await withHarness { harness in
            let client = try harness.server.makeClient(key: nil)
            defer { client.close() }
            #expect(try await client.checkHealth() == .serving)
        }
    }

    @Test func identifyCreatesOnceThenResolves() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let first = try await app.identify("alice")
            #expect(first.created)
            #expect(!first.merged)
            #expect(first.customer?.appUserID == "alice")
            #expect(first.customer?.version == 1)
            #expect(first.customer?.status?.state == .inactive)
            #expect(first.customer?.serverTime != nil)
            let second = try await app.identify("alice")
            #expect(!second.created)
            #expect(second.customer?.version == 1)
        }
    }

    @Test func anonymousUserWithAGrantIsAdoptedByANewIdentifiedID() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("$anon:phone")
            let grant = try await admin.grant("$anon:phone", "pro")
            let outcome = try await app.identify("bob", anonymousID: "$anon:phone")
            #expect(outcome.merged)
            #expect(!outcome.created)
            #expect(outcome.customer?.appUserID == "bob")
            #expect(outcome.customer?.status?.state == .active)
            #expect(outcome.customer?.version == 3)
            // Every RPC answers with the canonical ID for the alias.
            let viaAlias = try await app.sync("$anon:phone")
            #expect(viaAlias.appUserID == "bob")
            #expect(viaAlias.status?.entitlements.map(\.id) == ["pro"])
            let customer = try await admin.customer("$anon:phone")
            #expect(customer.customer?.appUserID == "bob")
            #expect(customer.aliases == ["$anon:phone"])
            #expect(customer.grants.map(\.grantID) == [grant.grantID])
            #expect(customer.grants.first?.appUserID == "bob")
            let events = try await admin.events("$anon:phone")
            #expect(events.events.first?.cause == .merged)
            #expect(events.events.first?.relatedAppUserID == "$anon:phone")
        }
    }

    @Test func anonymousUserWithAGrantMergesIntoAnExistingIdentifiedUser() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("carol")
            try await app.identify("$anon:tablet")
            let grant = try await admin.grant("$anon:tablet", "plus", duration: .seconds(Seconds.perHour))
            let outcome = try await app.identify("carol", anonymousID: "$anon:tablet")
            #expect(outcome.merged)
            #expect(!outcome.created)
            #expect(outcome.customer?.appUserID == "carol")
            #expect(outcome.customer?.version == 2)
            #expect(outcome.customer?.status?.entitlements.map(\.id) == ["plus"])
            #expect(outcome.customer?.status?.entitlements.first?.expiresAt == grant.expiresAt)

            let customer = try await admin.customer("carol")
            #expect(customer.aliases == ["$anon:tablet"])
            #expect(customer.grants.map(\.grantID) == [grant.grantID])
            #expect(try await app.sync("$anon:tablet").appUserID == "carol")
            let events = try await admin.events("carol")
            #expect(events.events.map(\.version) == [2, 1])
            #expect(events.events.first?.cause == .merged)
            #expect(events.events.first?.relatedAppUserID == "$anon:tablet")
            // A second Identify with the same pair changes nothing.
            let again = try await app.identify("carol", anonymousID: "$anon:tablet")
            #expect(!again.merged)
            #expect(again.customer?.version == 2)
            // Admin calls under the alias act on, and answer with, the canonical customer.
            let viaAlias = try await admin.grant("$anon:tablet", "pro")
            #expect(viaAlias.appUserID == "carol")
            #expect(try await admin.revoke(viaAlias.grantID).appUserID == "carol")
            #expect(try await admin.events("$anon:tablet").events.first?.version == 4)
            #expect(try await app.identify("$anon:tablet").customer?.appUserID == "carol")
        }
    }

    @Test func identifiedUsersAreNeverMerged() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await admin.grant("dave", "pro")
            try await app.identify("erin")
            #expect(await rpcErrorCode { try await app.identify("erin", anonymousID: "dave") } == .invalidArgument)
            // An anonymous ID already adopted by frank is frank's: erin does not get it.
            try await admin.grant("$anon:laptop", "plus")
            #expect(try await app.identify("frank", anonymousID: "$anon:laptop").merged)
            let erin = try await app.identify("erin", anonymousID: "$anon:laptop")
            #expect(!erin.merged)
            #expect(erin.customer?.status?.state == .inactive)
            #expect(try await app.sync("$anon:laptop").appUserID == "frank")
            #expect(try await app.sync("dave").status?.entitlements.map(\.id) == ["pro"])
        }
    }

    @Test func invalidAppUserIDsAreInvalidArgumentOnEveryRPC() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            for id in ["", "null", "undefined", "$anon:", "$ANON:x", "a\nb"] {
                #expect(await rpcErrorCode { try await app.identify(id) } == .invalidArgument, "\(id)")
                #expect(await rpcErrorCode { try await app.sync(id) } == .invalidArgument, "\(id)")
                #expect(await rpcErrorCode { try await admin.grant(id) } == .invalidArgument, "\(id)")
                #expect(await rpcErrorCode { try await admin.customer(id) } == .invalidArgument, "\(id)")
                #expect(await rpcErrorCode { try await admin.events(id) } == .invalidArgument, "\(id)")
                let stream = harness.stream(app, id)
                #expect(try await stream.errorCode() == .invalidArgument, "\(id)")
            }
        }
    }

    /// As StreamStatus, GetCustomer and ListCustomerEvents: a status belongs to a customer.
    @Test func syncStatusOfAnUnknownUserIsNotFoundAndCreatesNothing() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            #expect(await rpcErrorCode { try await app.sync("ghost") } == .notFound)
            #expect(try await harness.stream(app, "ghost").errorCode() == .notFound)
            #expect(await rpcErrorCode { try await admin.customer("ghost") } == .notFound)
            #expect(await rpcErrorCode { try await admin.events("ghost") } == .notFound)
            #expect(try await app.identify("ghost").created)
        }
    }

    @Test func syncStatusAfterGrantAndRevoke() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("alice")
            let grant = try await admin.grant("alice", "pro", duration: .seconds(Seconds.perHour), reason: "support ticket 42")
            #expect(grant.appUserID == "alice")
            #expect(grant.entitlementID == "pro")
            #expect(grant.reason == "support ticket 42")
            let starts = try #require(grant.startsAt)
            #expect(grant.expiresAt?.unixMilliseconds == starts.unixMilliseconds.map { $0 + Milliseconds.perHour })
            #expect(grant.revokedAt == nil)

            let active = try await app.sync("alice")
            #expect(active.version == 2)
            #expect(active.status?.state == .active)
            let entitlement = try #require(active.status?.entitlements.first)
            #expect(entitlement.id == "pro")
            #expect(entitlement.source == .grant)
            #expect(entitlement.expiresAt == grant.expiresAt)

            let revoked = try await admin.revoke(grant.grantID, reason: "refunded")
            #expect(revoked.revokedAt != nil)
            #expect(revoked.revocationReason == "refunded")
            let inactive = try await app.sync("alice")
            #expect(inactive.version == 3)
            #expect(inactive.status?.state == .inactive)
            #expect(inactive.status?.entitlements.isEmpty == true)

            // Revoking again is a no-op; an unknown grant is NOT_FOUND.
            #expect(try await admin.revoke(grant.grantID).revokedAt == revoked.revokedAt)
            #expect(try await app.sync("alice").version == 3)
            #expect(await rpcErrorCode { try await admin.revoke("gr_missing") } == .notFound)
            #expect(await rpcErrorCode { try await admin.revoke("") } == .invalidArgument)

            let events = try await admin.events("alice")
            #expect(events.events.map(\.cause) == [.revoke, .grant, .created])
            #expect(events.events.map(\.change) == [.statusChanged, .statusChanged, .customerInfoChanged])
            #expect(events.events.first?.referenceID == grant.grantID)
        }
    }

    @Test func grantValidationAndIdempotency() async throws {
        try await withHarness { harness in
            let admin = try harness.calls(key: harness.a.secretKey)
            let first = try await admin.grant("alice", "pro", duration: .seconds(60), idempotencyKey: "ticket-7")
            let retry = try await admin.grant("alice", "pro", duration: .seconds(60), idempotencyKey: "ticket-7")
            #expect(retry.grantID == first.grantID)
            #expect(retry.expiresAt == first.expiresAt)
            #expect(try await admin.customer("alice").grants.count == 1)
            #expect(try await admin.customer("alice").customer?.version == 2)
            #expect(
                await rpcErrorCode { try await admin.grant("alice", "plus", idempotencyKey: "ticket-7") }
                    == .failedPrecondition)

            // A product's entitlement is declared; an unknown one is not.
            #expect(try await admin.grant("alice", "premium").entitlementID == "premium")
            #expect(await rpcErrorCode { try await admin.grant("alice", "gold") } == .invalidArgument)
            #expect(
                await rpcErrorCode {
                    try await admin.grant(
                        "alice", "pro", duration: .seconds(1), expiresAt: ProtoTimestamp(seconds: 4_000_000_000))
                } == .invalidArgument)
            #expect(
                await rpcErrorCode { try await admin.grant("alice", "pro", expiresAt: ProtoTimestamp(seconds: 1)) }
                    == .invalidArgument)
            #expect(await rpcErrorCode { try await admin.grant("alice", "pro", duration: .seconds(-5)) } == .invalidArgument)
            let lifetime = try await admin.grant("alice", "plus")
            #expect(lifetime.expiresAt == nil)
            let untilThen = try await admin.grant("alice", "plus", expiresAt: ProtoTimestamp(seconds: 4_000_000_000))
            #expect(untilThen.expiresAt == ProtoTimestamp(seconds: 4_000_000_000))
        }
    }

    @Test func customerEventsArePagedNewestFirst() async throws {
        try await withHarness { harness in
            let admin = try harness.calls(key: harness.a.secretKey)
            try await admin.grant("alice", "pro")  // v1 created, v2 grant
            try await admin.grant("alice", "plus")  // v3
            let first = try await admin.events("alice", pageSize: 2)
            #expect(first.events.map(\.version) == [3, 2])
            #expect(!first.nextPageToken.isEmpty)
            let second = try await admin.events("alice", pageSize: 2, pageToken: first.nextPageToken)
            #expect(second.events.map(\.version) == [1])
            #expect(second.nextPageToken.isEmpty)
            #expect(second.events.first?.cause == .created)
            #expect(await rpcErrorCode { try await admin.events("alice", pageToken: "garbage") } == .invalidArgument)
        }
    }
}
