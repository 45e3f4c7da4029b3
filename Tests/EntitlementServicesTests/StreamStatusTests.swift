import CivilCalendar
import EntitlementDomain
import EntitlementsProto
import RPCCore
import Testing
import TestSupport

/// StreamStatus through the real server: snapshot, pushes from other connections and from time, resume, aliases.
@Suite struct StreamStatusTests {
    /// The sequence: SNAPSHOT; STATUS_CHANGED after a grant made on another connection; STATUS_CHANGED when
    /// that grant expires with no call at all; CUSTOMER_INFO_CHANGED when a later grant moves the expiry of an
    /// entitlement the customer already has.
    @Test func snapshotThenGrantThenExpiryThenExpiryMove() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("alice")
            let stream = harness.stream(app, "alice")

            let snapshot = try await stream.next()
            #expect(snapshot.kind == .snapshot)
            #expect(snapshot.appUserID == "alice")
            #expect(snapshot.version == 1)
            #expect(snapshot.state == .inactive)

            let grant = try await admin.grant("alice", "pro", duration: .milliseconds(1500))
            let granted = try await stream.next()
            #expect(granted.kind == .statusChanged)
            #expect(granted.version == 2)
            #expect(granted.state == .active)
            #expect(granted.entitlementIDs == ["pro"])
            #expect(granted.customer.status?.entitlements.first?.expiresAt == grant.expiresAt)

            // No call from here: the server's scheduler records and pushes the expiry.
            let expiry = try #require(grant.expiresAt?.unixTime)
            let expired = try await stream.next(within: 30)
            #expect(expired.kind == .statusChanged)
            #expect(expired.version == 3)
            #expect(expired.state == .inactive)
            #expect(expired.entitlementIDs.isEmpty)
            #expect(expired.at >= expiry, "not before the instant")
            #expect(expired.at.milliseconds - expiry.milliseconds <= 500, "pushed \(expired.at.milliseconds - expiry.milliseconds) ms after the expiry")

            let hour = try await admin.grant("alice", "pro", duration: .seconds(Seconds.perHour))
            let regained = try await stream.next()
            #expect(regained.kind == .statusChanged)
            #expect(regained.version == 4)
            #expect(regained.customer.status?.entitlements.first?.expiresAt == hour.expiresAt)

            let twoHours = try await admin.grant("alice", "pro", duration: .seconds(2 * Seconds.perHour))
            let moved = try await stream.next()
            #expect(moved.kind == .customerInfoChanged)
            #expect(moved.version == 5)
            #expect(moved.entitlementIDs == ["pro"])
            #expect(moved.customer.status?.entitlements.first?.expiresAt == twoHours.expiresAt)

            // The log agrees: the expiry was recorded as such, by time.
            let events = try await admin.events("alice")
            #expect(events.events.map(\.cause) == [.grant, .grant, .expiry, .grant, .created])
            // (Creating a customer leaves the set empty, so it is recorded as CUSTOMER_INFO_CHANGED.)
            #expect(
                events.events.map(\.change)
                    == [.customerInfoChanged, .statusChanged, .statusChanged, .statusChanged, .customerInfoChanged])
            #expect(try await stream.untaken(after: 100).isEmpty)
        }
    }

    /// Never before the expiry, and without any call; how soon after is a benchmark's figure (a loaded machine
    /// delays the timer by seconds), so the bound here only catches a push that waits for something else.
    @Test func expiryPushArrivesOnTimeWithoutAnyCall() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("bob")
            let stream = harness.stream(app, "bob")
            #expect(try await stream.next().kind == .snapshot)
            // Several expiries in a row, each scheduled after the previous one was recorded.
            for round in 1...3 {
                let grant = try await admin.grant("bob", "plus", duration: .milliseconds(300 + 200 * round))
                let expiry = try #require(grant.expiresAt?.unixTime)
                #expect(try await stream.next().state == .active)
                let expired = try await stream.next(within: 30)
                #expect(expired.kind == .statusChanged)
                #expect(expired.state == .inactive)
                let latency = expired.at.milliseconds - expiry.milliseconds
                #expect(latency >= 0 && latency <= 10_000, "round \(round): pushed \(latency) ms after the expiry")
            }
            // Reads agree without any call having recorded anything.
            #expect(try await app.sync("bob").status?.state == .inactive)
        }
    }

    @Test func everyStreamOfTheCustomerOnEveryConnectionGetsTheChange() async throws {
        try await withHarness { harness in
            let phone = try harness.calls(key: harness.a.publicKey)
            let tablet = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await phone.identify("alice")
            let streams = [harness.stream(phone, "alice"), harness.stream(phone, "alice"), harness.stream(tablet, "alice")]
            for stream in streams { #expect(try await stream.next().kind == .snapshot) }
            try await admin.grant("alice", "pro")
            for stream in streams {
                let event = try await stream.next()
                #expect(event.kind == .statusChanged)
                #expect(event.version == 2)
            }
        }
    }

    @Test func streamOfAnUnknownUserIsNotFound() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            #expect(try await harness.stream(app, "nobody").errorCode() == .notFound)
        }
    }

    @Test func resumeAfterVersionReplaysExactlyTheLaterEvents() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("alice")  // v1
            try await admin.grant("alice", "pro")  // v2
            try await admin.grant("alice", "plus", duration: .seconds(600))  // v3
            try await admin.grant("alice", "plus", duration: .seconds(1200))  // v4, same set

            let resumed = harness.stream(app, "alice", afterVersion: 2)
            let v3 = try await resumed.next()
            #expect(v3.kind == .statusChanged)
            #expect(v3.version == 3)
            #expect(v3.entitlementIDs == ["plus", "pro"])
            let v4 = try await resumed.next()
            #expect(v4.kind == .customerInfoChanged)
            #expect(v4.version == 4)
            // Then live.
            try await admin.grant("alice", "premium")
            let v5 = try await resumed.next()
            #expect(v5.version == 5)
            #expect(v5.kind == .statusChanged)

            // Up to date: nothing until the next change, and no snapshot.
            let current = harness.stream(app, "alice", afterVersion: 5)
            #expect(try await current.untaken(after: 200).isEmpty)
            try await admin.grant("alice", "pro", duration: .seconds(60))
            let v6 = try await current.next()
            #expect(v6.version == 6)
            #expect(v6.kind == .customerInfoChanged)
            #expect(try await resumed.next().version == 6)

            // A version the customer never had: a fresh snapshot.
            let future = harness.stream(app, "alice", afterVersion: 99)
            let snapshot = try await future.next()
            #expect(snapshot.kind == .snapshot)
            #expect(snapshot.version == 6)
        }
    }

    @Test func resumeFromTooFarBackStartsWithASnapshot() async throws {
        try await withHarness(replayLimit: 2) { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("alice")  // v1
            try await admin.grant("alice", "pro")  // v2
            try await admin.grant("alice", "plus")  // v3
            try await admin.grant("alice", "premium")  // v4
            let stale = harness.stream(app, "alice", afterVersion: 1)
            let snapshot = try await stale.next()
            #expect(snapshot.kind == .snapshot)
            #expect(snapshot.version == 4)
            #expect(snapshot.entitlementIDs == ["plus", "premium", "pro"])
            let recent = harness.stream(app, "alice", afterVersion: 2)
            #expect(try await recent.next().version == 3)
            #expect(try await recent.next().version == 4)
        }
    }

    /// Another instance's commits arrive together, as its group commit announces them: the stream gets every
    /// version between from the event log, each with its own reason, then the newest; beyond the replay window, a
    /// snapshot.
    @Test func changesCommittedElsewhereReachTheStreamEveryVersionInOrder() async throws {
        for replayLimit in [1000, 2] {
            try await withHarness(replayLimit: replayLimit) { harness in
                let app = try harness.calls(key: harness.a.publicKey)
                try await app.identify("alice")  // v1
                let stream = harness.stream(app, "alice")
                #expect(try await stream.next().version == 1)
                // A second engine on the same database: what it commits, this server's engine learns only when told.
                let elsewhere = CustomerEngine(repository: harness.server.repository)
                for (entitlement, reason) in [("pro", "first"), ("plus", "second"), ("premium", "third")] {
                    _ = try await elsewhere.grants.grant(
                        tenant: harness.a.tenant,
                        GrantRequest(
                            appUserID: "alice", entitlementID: entitlement, expiresAt: nil, durationMilliseconds: nil,
                            reason: reason, idempotencyKey: nil))
                }
                let customerID = try #require(try await elsewhere.customers.state(tenantID: harness.a.id, appUserID: "alice").customerID)
                let failures = await harness.server.engine.customers.applyCommittedElsewhere(
                    [CommittedVersion(tenantID: harness.a.id, customerID: customerID, version: 4)])
                #expect(failures.isEmpty)
                if replayLimit == 2 {
                    let snapshot = try await stream.next()
                    #expect(snapshot.kind == .snapshot)
                    #expect(snapshot.version == 4)
                    #expect(snapshot.entitlementIDs == ["plus", "premium", "pro"])
                } else {
                    var seen: [(UInt64, String)] = []
                    for _ in 0..<3 {
                        let event = try await stream.next()
                        #expect(event.kind == .statusChanged)
                        seen.append((event.version, event.event.reason))
                    }
                    #expect(seen.map(\.0) == [2, 3, 4])
                    #expect(seen.map(\.1) == ["first", "second", "third"])
                }
                #expect(try await stream.untaken(after: 200).isEmpty)
            }
        }
    }

    @Test func streamUnderAnAliasFollowsTheCanonicalCustomer() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("carol")
            try await admin.grant("$anon:watch", "plus")
            #expect(try await app.identify("carol", anonymousID: "$anon:watch").merged)

            let stream = harness.stream(app, "$anon:watch")
            let snapshot = try await stream.next()
            #expect(snapshot.kind == .snapshot)
            #expect(snapshot.appUserID == "carol")
            #expect(snapshot.version == 2)
            #expect(snapshot.entitlementIDs == ["plus"])

            try await admin.grant("carol", "pro")
            let event = try await stream.next()
            #expect(event.kind == .statusChanged)
            #expect(event.appUserID == "carol")
            #expect(event.version == 3)
            #expect(event.entitlementIDs == ["plus", "pro"])
            // Resuming under the alias replays the canonical customer's log.
            let resumed = harness.stream(app, "$anon:watch", afterVersion: 1)
            #expect(try await resumed.next().version == 2)
            #expect(try await resumed.next().version == 3)
        }
    }

    @Test func streamOpenUnderTheAnonymousIDFollowsTheMergeWithASnapshot() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("carol")
            try await app.identify("$anon:watch")
            let stream = harness.stream(app, "$anon:watch")
            #expect(try await stream.next().kind == .snapshot)
            try await admin.grant("$anon:watch", "plus")
            #expect(try await stream.next().entitlementIDs == ["plus"])

            #expect(try await app.identify("carol", anonymousID: "$anon:watch").merged)
            // After the merge the stream carries carol; a later grant to carol reaches it.
            try await admin.grant("carol", "pro")
            var afterMerge: [StreamRecorder.Arrival] = []
            while afterMerge.last?.entitlementIDs != ["plus", "pro"] {
                afterMerge.append(try await stream.next())
            }
            let snapshot = afterMerge.first { $0.kind == .snapshot }
            #expect(snapshot?.appUserID == "carol")
            #expect(snapshot?.version == 2)
            #expect(snapshot?.entitlementIDs == ["plus"])
            #expect(afterMerge.last?.kind == .statusChanged)
            #expect(afterMerge.last?.appUserID == "carol")
            #expect(afterMerge.last?.version == 3)
        }
    }

    /// The device keeps its entitlement through the merge (its grant moved to carol), so its open stream must never
    /// report it gone. (Regression: the emptied anonymous customer's own STATUS_CHANGED to INACTIVE, at the husk's
    /// version, used to go out before the survivor's snapshot.)
    @Test func streamOpenUnderTheAnonymousIDNeverReportsItsEntitlementsGoneDuringAMerge() async throws {
        try await withHarness { harness in
            let app = try harness.calls(key: harness.a.publicKey)
            let admin = try harness.calls(key: harness.a.secretKey)
            try await app.identify("carol")
            try await admin.grant("$anon:watch", "plus")
            let stream = harness.stream(app, "$anon:watch")
            #expect(try await stream.next().entitlementIDs == ["plus"])
            #expect(try await app.identify("carol", anonymousID: "$anon:watch").merged)
            try await admin.grant("carol", "pro")
            var afterMerge: [StreamRecorder.Arrival] = []
            while afterMerge.last?.entitlementIDs != ["plus", "pro"] {
                afterMerge.append(try await stream.next())
            }
            for event in afterMerge {
                #expect(
                    event.state == .active,
                    "v\(event.version) \(event.kind.rawValue) for \(event.appUserID): \(event.event.reason)")
            }
        }
    }
}
