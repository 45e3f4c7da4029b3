import EntitlementDomain
import Synchronization
import Testing

/// The hub's bounds (coalescing for slow readers, streams per customer) and merges moving streams.
@Suite struct StatusHubTests {
    static func update(_ version: UInt64, _ kind: StatusUpdate.Kind = .changed(.customerInfoChanged)) -> StatusUpdate {
        StatusUpdate(
            kind: kind,
            state: CustomerState(customerID: 1, appUserID: "alice", version: version, status: .inactive),
            reason: "v\(version)")
    }

    @Test func slowReaderGetsABoundedNumberOfUpdatesEndingWithTheLatest() async throws {
        let hub = StatusHub(maxStreamsPerCustomer: 4, maxPendingUpdates: 4)
        let subscription = try hub.subscribe(tenantID: "acme", customerID: 1)
        defer { subscription.cancel() }
        let published: UInt64 = 22
        for version in 1...published {
            hub.publish(
                tenantID: "acme", customerID: 1,
                Self.update(version, version == 3 ? .changed(.statusChanged) : .changed(.customerInfoChanged)))
        }
        var received: [StatusUpdate] = []
        while received.last?.state.version != published {
            received.append(try await subscription.next(within: 5))
            #expect(received.count <= 4)
            if received.count > 4 { break }
        }
        #expect(received.count <= 4)
        #expect(received.last?.state.version == published)
        #expect(received.map(\.state.version) == received.map(\.state.version).sorted(), "in version order")
        // The one status change among them is not lost by folding.
        #expect(received.contains { $0.kind == .changed(.statusChanged) })
    }

    @Test func updatesForOtherCustomersAndTenantsAreNotDelivered() async throws {
        let hub = StatusHub()
        let subscription = try hub.subscribe(tenantID: "acme", customerID: 1)
        defer { subscription.cancel() }
        hub.publish(tenantID: "globex", customerID: 1, Self.update(7))
        hub.publish(tenantID: "acme", customerID: 2, Self.update(8))
        hub.publish(tenantID: "acme", customerID: 1, Self.update(9))
        #expect(try await subscription.next(within: 5).state.version == 9)
    }

    @Test func perCustomerStreamLimitIsResourceExhausted() throws {
        let hub = StatusHub(maxStreamsPerCustomer: 2)
        let first = try hub.subscribe(tenantID: "acme", customerID: 1)
        let second = try hub.subscribe(tenantID: "acme", customerID: 1)
        #expect(throws: DomainError.resourceExhausted("")) { try hub.subscribe(tenantID: "acme", customerID: 1) }
        // Other customers, and the same customer ID in another tenant, have their own limit.
        let other = try hub.subscribe(tenantID: "acme", customerID: 2)
        let otherTenant = try hub.subscribe(tenantID: "globex", customerID: 1)
        #expect(hub.streamCount == 4)
        // Closing a stream frees its slot.
        first.cancel()
        #expect(hub.streamCount == 3)
        let third = try hub.subscribe(tenantID: "acme", customerID: 1)
        for subscription in [second, other, otherTenant, third] { subscription.cancel() }
        #expect(hub.streamCount == 0)
    }

    /// What the server's memory return counts: each closed stream once, a refused one never.
    @Test func closedStreamsAreCountedOnce() throws {
        let hub = StatusHub(maxStreamsPerCustomer: 2)
        let first = try hub.subscribe(tenantID: "acme", customerID: 1)
        let second = try hub.subscribe(tenantID: "acme", customerID: 1)
        #expect(throws: DomainError.resourceExhausted("")) { try hub.subscribe(tenantID: "acme", customerID: 1) }
        #expect(hub.closedStreamCount == 0)
        first.cancel()
        first.cancel()
        #expect(hub.closedStreamCount == 1)
        second.cancel()
        #expect(hub.closedStreamCount == 2)
        #expect(hub.streamCount == 0)
    }

    @Test func mergeMovesSubscribersOfTheAnonymousCustomerAndDeliversASnapshot() async throws {
        let harness = try EngineHarness()
        let carol = try await harness.identify("carol")
        let carolID = try #require(carol.state.customerID)
        let anonymous = try await harness.identify("$anon:device")
        let anonymousID = try #require(anonymous.state.customerID)
        try await harness.grant("$anon:device", "pro")
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: anonymousID)
        defer { subscription.cancel() }

        let merged = try await harness.identify("carol", anonymousID: "$anon:device")
        #expect(merged.merged)
        // Not read during the merge: the stream's first update afterwards is a snapshot of the survivor.
        let snapshot = try await subscription.next(within: 5)
        #expect(snapshot.kind == .snapshot)
        #expect(snapshot.state.appUserID == "carol")
        #expect(snapshot.state.customerID == carolID)
        #expect(snapshot.state.version == 2)
        #expect(snapshot.state.status.activeIDs == ["pro"])
        #expect(subscription.customerID == carolID)

        // From now on it follows carol.
        try await harness.grant("carol", "plus")
        let next = try await subscription.next(within: 5)
        #expect(next.kind == .changed(.statusChanged))
        #expect(next.state.appUserID == "carol")
        #expect(next.state.version == 3)
        #expect(next.state.status.activeIDs == ["plus", "pro"])
    }

    /// A device streaming under its anonymous ID while it logs in must not see its entitlements vanish: the
    /// merge moves its grants to the identified customer, so its status never actually goes inactive.
    /// (Regression: the emptied customer's own INACTIVE update used to reach a waiting reader before the snapshot.)
    @Test func waitingStreamOfTheAbsorbedCustomerNeverSeesItGoInactiveDuringAMerge() async throws {
        let harness = try EngineHarness()
        try await harness.identify("carol")
        let anonymous = try await harness.identify("$anon:device")
        let anonymousID = try #require(anonymous.state.customerID)
        try await harness.grant("$anon:device", "pro")
        let subscription = try harness.engine.hub.subscribe(tenantID: harness.tenantID, customerID: anonymousID)
        defer { subscription.cancel() }

        // The reader is already waiting when the merge commits, as a server stream always is.
        let received = Mutex<[StatusUpdate]>([])
        let reader = Task {
            for await update in subscription {
                let count = received.withLock { received in
                    received.append(update)
                    return received.count
                }
                if count == 2 { break }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        try await harness.identify("carol", anonymousID: "$anon:device")
        try await harness.grant("carol", "plus")
        _ = try await within(5, "two updates") { await reader.value }
        let updates = received.withLock { $0 }
        #expect(updates.allSatisfy { $0.state.status.activeIDs.contains("pro") }, "\(updates)")
        #expect(updates.first?.kind == .snapshot)
        #expect(updates.first?.state.appUserID == "carol")
    }
}
