import EntitlementsKit
import EntitlementsProto
import Foundation
import Synchronization
import Testing
import TestSupport

/// The device's own store data OR-ed into the server's status, re-checked before a server "no", and forwarded.
@Suite struct LocalEntitlementsTests {
    static let products: [String: Set<String>] = ["com.example.pro.monthly": ["pro"]]

    static func sdk(_ transport: ScriptedTransport, _ source: FakeLocalSource) -> Entitlements {
        Entitlements(configuration: .init(
            transport: transport, localSource: source, productEntitlements: products, clock: RecordedSleeps().clock))
    }

    @Test func whatOnlyTheDeviceShowsKeepsAccessLabelledLocal() async throws {
        let transport = ScriptedTransport()
        transport.state.withLock { $0.purchaseFailure = EntitlementsError(code: .unavailable, message: "down") }
        let source = FakeLocalSource(current: [FakeLocalSource.transaction("1")])
        let entitlements = Self.sdk(transport, source)
        await entitlements.start()
        let current = await entitlements.current
        #expect(current.status.isActive("pro") && current.status.entitlements.first?.source == .local)
        #expect(current.origin == .server && current.localEntitlementIDs == ["pro"])
        // Not accepted by the server (it could not be reached): not finished, and sent again when the network is back.
        #expect(transport.purchases == ["jws-1-active"] && source.finished.isEmpty)
        transport.state.withLock { $0.purchaseFailure = nil }
        await entitlements.networkChanged()
        #expect(transport.purchases == ["jws-1-active", "jws-1-active"] && source.finished == ["jws-1-active"])
    }

    @Test func aServerNoAsksTheDeviceAgainAndAccessEndsOnlyWhenBothAgree() async throws {
        let transport = ScriptedTransport([
            .init(events: [ScriptedTransport.event(.snapshot, version: 1, active: ["pro"], source: .appStore)], fails: false),
            .init(events: [ScriptedTransport.event(.statusChanged, version: 2, active: [])], fails: false),
        ])
        transport.state.withLock { $0.purchaseAnswer = ScriptedTransport.customer(version: 1, active: ["pro"], source: .appStore) }
        let source = FakeLocalSource(current: [FakeLocalSource.transaction("1")])
        let entitlements = Self.sdk(transport, source)
        await entitlements.start()
        let readsAtStart = source.reads
        let updates = await UpdateRecorder(entitlements)
        // Version 2 says inactive; the device, asked again, still shows the purchase: access stays (as local).
        try await updates.first { $0.snapshot.version == 2 }
        #expect(source.reads > readsAtStart)
        #expect(await entitlements.current.status.isActive("pro"))
        #expect(await entitlements.current.status.entitlements.first?.source == .local)
        // The device no longer shows it either (a refund reached StoreKit): both agree, access ends.
        source.show([])
        transport.state.withLock { $0.status = ScriptedTransport.customer(version: 3, active: []) }
        let answer = try await entitlements.refresh()
        #expect(answer.version == 3 && answer.status == .inactive)
    }

    @Test func aRevocationUnderAKnownTransactionIDIsForwardedAndEndsLocalAccess() async throws {
        let transport = ScriptedTransport()
        let source = FakeLocalSource()
        let entitlements = Self.sdk(transport, source)
        await entitlements.start()
        let bought = FakeLocalSource.transaction("7")
        source.push(bought)
        try await eventually { source.finished == ["jws-7-active"] }
        #expect(await entitlements.current.status.isActive("pro"))
        // The same transaction again, unchanged: not sent twice.
        source.push(bought)
        // Refunded: same transaction ID, now with a revocation date.
        var refunded = bought
        refunded.revokedAt = Date()
        refunded.signedTransaction = "jws-7-revoked"
        source.push(refunded)
        try await eventually { source.finished == ["jws-7-active", "jws-7-revoked"] }
        #expect(transport.purchases == ["jws-7-active", "jws-7-revoked"])
        #expect(await entitlements.current.status == .inactive)
    }

    @Test func aLocalEntitlementEndsAtItsExpiryWithNoServerAnswer() async throws {
        let transport = ScriptedTransport()
        transport.state.withLock { $0.purchaseFailure = EntitlementsError(code: .unavailable, message: "down") }
        let time = ManualClock()
        let source = FakeLocalSource(current: [FakeLocalSource.transaction("1", expires: time.date.addingTimeInterval(60))])
        let entitlements = Entitlements(configuration: .init(
            transport: transport, localSource: source, productEntitlements: Self.products, clock: time.entitlementsClock))
        await entitlements.start()
        #expect(await entitlements.current.status.isActive("pro"))
        time.advance(seconds: 59)
        try await Task.sleep(for: .milliseconds(50))
        #expect(await entitlements.current.status.isActive("pro"))
        time.advance(seconds: 2)
        try await eventually { await entitlements.current.status == .inactive }
    }

    @Test func anUpgradedTransactionGrantsNothingLocally() {
        var upgraded = FakeLocalSource.transaction("1")
        upgraded.isUpgraded = true
        #expect(!upgraded.isActive(at: Date()))
        // Its description is safe to log: no signed transaction in it.
        #expect(!"\(upgraded)".contains(upgraded.signedTransaction) && "\(upgraded)".contains("upgraded"))
        var dumped = ""
        dump(upgraded, to: &dumped)
        #expect(!dumped.contains(upgraded.signedTransaction))
    }

    @Test func productsTheAppDoesNotMapGrantNothingLocally() {
        let server = StatusSnapshot(appUserID: "u", status: .unknown, version: 0, origin: .device, receivedAt: .distantPast)
        let combined = server.including(
            local: [FakeLocalSource.transaction("1", product: "com.example.other")], productEntitlements: Self.products,
            at: Date())
        #expect(combined.status == .unknown)
        let shown = server.including(local: [FakeLocalSource.transaction("1")], productEntitlements: Self.products, at: Date())
        #expect(shown.status.isActive("pro") && shown.origin == .device)
        let expired = server.including(
            local: [FakeLocalSource.transaction("1", expires: Date().addingTimeInterval(-1))],
            productEntitlements: Self.products, at: Date())
        #expect(expired.status == .unknown)
    }
}
