import EntitlementsKit
import EntitlementsProto
import Foundation
import Synchronization
import Testing

/// The shared stream's reconnects, version rule and app lifecycle, against scripted streams and an injected clock.
@Suite struct EntitlementsStreamTests {
    /// The steps themselves, not a random share of them, so the schedule can be checked exactly.
    static let noJitter: @Sendable (Duration) -> Duration = { $0 }

    @Test func aDroppedStreamResumesFromTheLastVersionAndTheBackoffResetsOnlyAfterAHealthyStream() async throws {
        let transport = ScriptedTransport([
            .init(events: [ScriptedTransport.event(.snapshot, version: 3, active: [])], fails: true),
            .init(events: [], fails: true),
            .init(events: [ScriptedTransport.event(.statusChanged, version: 4, active: ["pro"])], fails: true),
            .init(events: [ScriptedTransport.event(.statusChanged, version: 5, active: [])], fails: true),
        ])
        // Each reading of the clock is a second after the one before: a stream that delivers one event is read a
        // few times, so it looks up a few seconds when it drops, less than the 10 s that make it healthy.
        let sleeps = RecordedSleeps(secondsPerReading: 1)
        let entitlements = Entitlements(configuration: .init(
            transport: transport, backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(8), healthyAfter: .seconds(10)),
            jitter: Self.noJitter, clock: sleeps.clock))
        let updates = await UpdateRecorder(entitlements)
        let resumed = try await updates.first { $0.snapshot.version == 4 }
        #expect(resumed.change == .entitlements && resumed.snapshot.status.isActive("pro"))
        try await eventually { await entitlements.streamsOpened == 5 }
        #expect(transport.afterVersions == [0, 3, 3, 4, 5])
        // Delivering but short-lived streams do not reset the backoff: 1, 2, 4, 8 s.
        #expect(sleeps.recorded.prefix(4) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8)])
    }

    @Test func aStreamThatStayedUpResetsTheBackoff() async throws {
        let transport = ScriptedTransport([
            .init(events: [], fails: true),
            .init(events: [], fails: true),
            .init(events: [ScriptedTransport.event(.snapshot, version: 3, active: [])], fails: true),
        ])
        // Every reading a minute later: the delivering stream counts as healthy.
        let sleeps = RecordedSleeps(secondsPerReading: 60)
        let entitlements = Entitlements(configuration: .init(
            transport: transport, backoff: ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60)),
            jitter: Self.noJitter, clock: sleeps.clock))
        let updates = await UpdateRecorder(entitlements)
        try await eventually { await entitlements.streamsOpened == 4 }
        #expect(sleeps.recorded.prefix(3) == [.seconds(1), .seconds(2), .seconds(1)])
        updates.stop()
    }

    @Test func fullJitterSpreadsWaitsUnderTheCap() async throws {
        let transport = ScriptedTransport(Array(repeating: .init(events: [], fails: true), count: 12))
        let sleeps = RecordedSleeps()
        let backoff = ReconnectBackoff(initial: .milliseconds(250), maximum: .seconds(4))
        let entitlements = Entitlements(configuration: .init(transport: transport, backoff: backoff, clock: sleeps.clock))
        let updates = await UpdateRecorder(entitlements)
        try await eventually { await entitlements.streamsOpened == 13 }
        let waits = sleeps.recorded.prefix(12)
        for (attempt, wait) in waits.enumerated() { #expect(wait <= backoff.step(attempt: attempt)) }
        // Full jitter over growing steps: the later waits reach past the first step (odds of failing: 2^-40).
        #expect(waits.dropFirst(6).contains { $0 > .milliseconds(250) })
        updates.stop()
    }

    @Test func anOlderVersionNeverReplacesANewerOne() async throws {
        let transport = ScriptedTransport([
            .init(events: [
                ScriptedTransport.event(.snapshot, version: 5, active: ["pro"]),
                ScriptedTransport.event(.statusChanged, version: 4, active: []),
                ScriptedTransport.event(.heartbeat, version: 0, active: []),
            ], fails: false),
        ])
        let entitlements = Entitlements(configuration: .init(transport: transport, clock: RecordedSleeps().clock))
        let updates = await UpdateRecorder(entitlements)
        try await updates.first { $0.snapshot.version == 5 }
        try await eventually { await entitlements.streamsOpened == 2 }
        let current = await entitlements.current
        #expect(current.version == 5 && current.status.isActive("pro"))
        #expect(!updates.all.contains { $0.snapshot.version == 4 })
    }

    @Test func aNetworkChangeEndsTheWaitBeforeAReconnectAndReopensAnOpenStream() async throws {
        let transport = ScriptedTransport([
            .init(events: [], fails: true),
            .init(events: [ScriptedTransport.event(.snapshot, version: 2, active: [])], fails: false),
        ])
        let sleeps = GatedSleeps()
        let entitlements = Entitlements(configuration: .init(transport: transport, clock: sleeps.clock))
        let updates = await UpdateRecorder(entitlements)
        try await eventually { sleeps.waits.count == 1 }
        #expect(await entitlements.streamsOpened == 1)
        await entitlements.networkChanged()
        try await eventually { await entitlements.streamsOpened == 2 }
        try await eventually { sleeps.waits.count == 2 }  // the second stream ended normally and waits again
        await entitlements.networkChanged()
        try await eventually { await entitlements.streamsOpened == 3 }
        // A stream that is open (no script left: it stays open) is reopened from the last version on a change.
        try await Task.sleep(for: .milliseconds(50))
        await entitlements.networkChanged()
        try await eventually { await entitlements.streamsOpened == 4 }
        #expect(transport.afterVersions == [0, 0, 2, 2])
        updates.stop()
    }

    @Test func theBackgroundClosesTheStreamAndTheForegroundResumesItAndAsksTheServer() async throws {
        let transport = ScriptedTransport([
            .init(events: [ScriptedTransport.event(.snapshot, version: 2, active: ["pro"])], fails: false),
        ])
        let entitlements = Entitlements(configuration: .init(transport: transport, clock: RecordedSleeps().clock))
        let updates = await UpdateRecorder(entitlements)
        try await eventually { await entitlements.streamsOpened == 2 }
        await entitlements.enteredBackground()
        let syncsBefore = transport.syncs
        // Changes while in the background are not streamed (nothing is open)…
        transport.state.withLock { $0.status = ScriptedTransport.customer(version: 3, active: ["pro", "plus"]) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(await entitlements.streamsOpened == 2)
        // …and the foreground catches up at once.
        await entitlements.enteredForeground()
        #expect(transport.syncs == syncsBefore + 1)
        #expect(await entitlements.current.status.isActive("plus"))
        try await eventually { await entitlements.streamsOpened == 3 }
        #expect(transport.afterVersions.last == 3)
        updates.stop()
    }

    @Test func detailsAreToldApartFromChangesOfTheSet() async throws {
        var renewing = ScriptedTransport.event(.customerInfoChanged, version: 2, active: ["pro"])
        renewing.customer?.status?.entitlements[0].willRenew = true
        let transport = ScriptedTransport([
            .init(events: [
                ScriptedTransport.event(.snapshot, version: 1, active: ["pro"]), renewing,
                ScriptedTransport.event(.statusChanged, version: 3, active: []),
            ], fails: false),
        ])
        let entitlements = Entitlements(configuration: .init(transport: transport, clock: RecordedSleeps().clock))
        let updates = await UpdateRecorder(entitlements)
        try await updates.first { $0.snapshot.version == 3 }
        let changes = updates.all.filter { $0.snapshot.version > 0 }.map(\.change)
        #expect(changes == [.entitlements, .details, .entitlements])
    }
}
