import EntitlementDomain
import EntitlementsProto
import RPCCore
import Testing
import TestSupport

/// Keys, tenants and stream limits through the real server.
@Suite struct AuthAndIsolationTests {
    /// Every RPC once, with whatever key `calls` sends; the codes in order.
    static func everyRPC(_ calls: Calls, harness: Harness) async throws -> [String: RPCError.Code?] {
        var codes: [String: RPCError.Code?] = [:]
        func code(_ body: () async throws -> some Any) async -> RPCError.Code? {
            do {
                _ = try await body()
                return .ok
            } catch let error as RPCError {
                return error.code
            } catch {
                return nil
            }
        }
        codes["Identify"] = await code { try await calls.identify("alice") }
        codes["SyncStatus"] = await code { try await calls.sync("alice") }
        // A stream that delivers its first event is open (OK); one that ends first failed with its code.
        let stream = harness.stream(calls, "alice")
        do {
            _ = try await stream.next()
            codes["StreamStatus"] = .ok
        } catch {
            codes["StreamStatus"] = try await stream.errorCode() ?? .ok
        }
        codes["GrantEntitlement"] = await code { try await calls.grant("alice") }
        codes["RevokeGrant"] = await code { try await calls.revoke("gr_missing") }
        codes["GetCustomer"] = await code { try await calls.customer("alice") }
        codes["ListCustomerEvents"] = await code { try await calls.events("alice") }
        return codes
    }

    static let entitlementRPCs = ["Identify", "SyncStatus", "StreamStatus"]
    static let adminRPCs = ["GrantEntitlement", "RevokeGrant", "GetCustomer", "ListCustomerEvents"]

    @Test func missingKeyIsUnauthenticatedEverywhere() async throws {
        try await withHarness { harness in
            let codes = try await Self.everyRPC(try harness.calls(key: nil), harness: harness)
            for rpc in Self.entitlementRPCs + Self.adminRPCs { #expect(codes[rpc] == .unauthenticated, "\(rpc)") }
        }
    }

    @Test func unknownOrMalformedKeysAreUnauthenticatedEverywhere() async throws {
        try await withHarness { harness in
            let unknown = [
                APIKey.generate(.publicKey), APIKey.generate(.secretKey), "pk_", "not-a-key",
                // A tenant's key with one digit changed.
                String(harness.a.secretKey.dropLast()) + (harness.a.secretKey.hasSuffix("0") ? "1" : "0"),
            ]
            for key in unknown {
                let codes = try await Self.everyRPC(try harness.calls(key: key), harness: harness)
                for rpc in Self.entitlementRPCs + Self.adminRPCs {
                    #expect(codes[rpc] == .unauthenticated, "\(rpc) with \(key.prefix(4))...")
                }
            }
        }
    }

    @Test func publicKeyOnAdminServiceIsPermissionDenied() async throws {
        try await withHarness { harness in
            let codes = try await Self.everyRPC(try harness.calls(key: harness.a.publicKey), harness: harness)
            for rpc in Self.adminRPCs { #expect(codes[rpc] == .permissionDenied, "\(rpc)") }
            for rpc in Self.entitlementRPCs { #expect(codes[rpc] == .ok, "\(rpc)") }
            // Nothing was granted by the refused calls.
            #expect(try await harness.calls(key: harness.a.publicKey).sync("alice").status?.state == .inactive)
        }
    }

    @Test func secretKeyMayCallAdminService() async throws {
        try await withHarness { harness in
            let codes = try await Self.everyRPC(try harness.calls(key: harness.a.secretKey), harness: harness)
            #expect(codes["GrantEntitlement"] == .ok)
            #expect(codes["GetCustomer"] == .ok)
            #expect(codes["ListCustomerEvents"] == .ok)
            #expect(codes["RevokeGrant"] == .notFound)
        }
    }

    /// Tenant A's keys, tenant B's users, grant IDs and idempotency keys: A never reads or changes B's data.
    @Test func tenantsAreIsolatedOnEveryRPC() async throws {
        try await withHarness { harness in
            let appA = try harness.calls(key: harness.a.publicKey)
            let adminA = try harness.calls(key: harness.a.secretKey)
            let appB = try harness.calls(key: harness.b.publicKey)
            let adminB = try harness.calls(key: harness.b.secretKey)

            // Tenant B's data: an identified user with a grant, an anonymous user with a grant.
            try await appB.identify("shared")
            let grantB = try await adminB.grant("shared", "pro", idempotencyKey: "same-key")
            let anonB = try await adminB.grant("$anon:b-device", "plus")
            let beforeB = try await adminB.customer("shared")
            #expect(beforeB.customer?.version == 2)

            // Reads with A's keys see nothing of B.
            #expect(await rpcErrorCode { try await appA.sync("shared") } == .notFound)
            #expect(try await harness.stream(appA, "shared").errorCode() == .notFound)
            #expect(await rpcErrorCode { try await adminA.customer("shared") } == .notFound)
            #expect(await rpcErrorCode { try await adminA.events("shared") } == .notFound)
            #expect(await rpcErrorCode { try await adminA.customer("$anon:b-device") } == .notFound)

            // Writes with A's keys cannot touch B's grants or customers.
            #expect(await rpcErrorCode { try await adminA.revoke(grantB.grantID) } == .notFound)
            #expect(await rpcErrorCode { try await adminA.revoke(anonB.grantID) } == .notFound)
            let identified = try await appA.identify("shared")
            #expect(identified.created)
            #expect(identified.customer?.version == 1)
            #expect(identified.customer?.status?.state == .inactive)
            // B's anonymous ID with history is not B's in tenant A: nothing is merged.
            let merged = try await appA.identify("a-user", anonymousID: "$anon:b-device")
            #expect(!merged.merged)
            #expect(merged.customer?.status?.state == .inactive)
            // The same idempotency key in A is A's own.
            let grantA = try await adminA.grant("shared", "plus", idempotencyKey: "same-key")
            #expect(grantA.grantID != grantB.grantID)
            #expect(grantA.entitlementID == "plus")

            // A stream in A does not hear B's changes to the same app user ID.
            let streamA = harness.stream(appA, "shared")
            let snapshotA = try await streamA.next()
            #expect(snapshotA.version == 2)
            #expect(snapshotA.entitlementIDs == ["plus"])
            let streamB = harness.stream(appB, "shared")
            #expect(try await streamB.next().entitlementIDs == ["pro"])
            try await adminB.grant("shared", "premium")
            #expect(try await streamB.next().entitlementIDs == ["premium", "pro"])
            #expect(try await streamA.untaken(after: 300).isEmpty)

            // B is exactly as before, plus its own last grant.
            let afterB = try await adminB.customer("shared")
            #expect(afterB.customer?.version == 3)
            #expect(afterB.grants.map(\.grantID).contains(grantB.grantID))
            #expect(afterB.grants.allSatisfy { $0.revokedAt == nil })
            #expect(afterB.aliases.isEmpty)
            #expect(try await appB.sync("$anon:b-device").status?.entitlements.map(\.id) == ["plus"])
            #expect(try await appB.sync("$anon:b-device").appUserID == "$anon:b-device")
            let eventsB = try await adminB.events("shared")
            #expect(eventsB.events.map(\.cause) == [.grant, .grant, .created])
            // And A's customer holds only A's grant.
            #expect(try await adminA.customer("shared").grants.map(\.grantID) == [grantA.grantID])
        }
    }

    @Test func perConnectionStreamLimitIsResourceExhausted() async throws {
        try await withHarness(maxStreamsPerConnection: 2) { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            for user in ["u1", "u2", "u3"] { try await app.identify(user) }
            let first = harness.stream(app, "u1")
            let second = harness.stream(app, "u2")
            #expect(try await first.next().kind == .snapshot)
            #expect(try await second.next().kind == .snapshot)
            #expect(try await harness.stream(app, "u3").errorCode() == .resourceExhausted)
            // Another connection has its own slots.
            let other = try harness.calls(key: harness.a.publicKey)
            #expect(try await harness.stream(other, "u3").next().kind == .snapshot)
            // Closing a stream frees its slot on the connection.
            first.cancel()
            #expect(try await first.end(within: 30) != nil)
            var reopened: StreamRecorder.Arrival?
            for _ in 0..<50 where reopened == nil {
                let attempt = harness.stream(app, "u3")
                reopened = try? await attempt.next(within: 1)
                if reopened == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(reopened?.kind == .snapshot)
        }
    }

    @Test func perCustomerStreamLimitIsResourceExhausted() async throws {
        try await withHarness(maxStreamsPerCustomer: 2) { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            try await app.identify("popular")
            try await app.identify("other")
            let phone = harness.stream(try harness.calls(key: harness.a.publicKey), "popular")
            let tablet = harness.stream(try harness.calls(key: harness.a.publicKey), "popular")
            #expect(try await phone.next().kind == .snapshot)
            #expect(try await tablet.next().kind == .snapshot)
            #expect(try await harness.stream(app, "popular").errorCode() == .resourceExhausted)
            #expect(try await harness.stream(app, "other").next().kind == .snapshot)
            #expect(harness.server.hub.streamCount == 3)
        }
    }
}
