import CivilCalendar
import EntitlementDomain
import Testing
import TestSupport

@Suite struct StateMemoTests {
    @Test func aCachedStateDerivesItsBytesOnceAndANewStateStartsAfresh() async throws {
        let harness = try EngineHarness()
        _ = try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perMinute)
        var makes = 0
        let make = { () -> [UInt8] in
            makes += 1
            return [UInt8(makes)]
        }
        let (_, memo) = try await harness.engine.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        let first = try #require(memo).bytes(orMake: make)
        let (_, again) = try await harness.engine.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        #expect(try #require(again).bytes(orMake: make) == first)
        #expect(makes == 1)
        // A write replaces the cache entry, and with it what was derived from the old state.
        _ = try await harness.grant("alice", "plus", durationMilliseconds: Milliseconds.perMinute)
        let (state, fresh) = try await harness.engine.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        #expect(state.status.activeIDs == ["plus", "pro"])
        #expect(try #require(fresh).bytes(orMake: make) == [2])
    }

    @Test func aStatePastItsNextChangeHasNoMemo() async throws {
        let harness = try EngineHarness()
        _ = try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perMinute)
        _ = harness.clock.advance(milliseconds: 60_001)
        let (state, memo) = try await harness.engine.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        #expect(state.status.activeIDs.isEmpty)
        #expect(memo == nil, "a recomputed status must not be answered with bytes derived from the cached one")
    }

    /// First readers racing on a fresh memo may each derive bytes, but all of them get the one result kept.
    @Test func racingFirstReadersAllGetTheKeptBytes() async throws {
        let harness = try EngineHarness()
        _ = try await harness.grant("alice", "pro", durationMilliseconds: Milliseconds.perMinute)
        let (_, memo) = try await harness.engine.customers.memoizedState(tenantID: harness.tenantID, appUserID: "alice")
        let shared = try #require(memo)
        let results = await withTaskGroup(of: [UInt8].self) { group in
            for reader in 0..<16 {
                group.addTask { shared.bytes(orMake: { [UInt8(reader)] }) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results).count == 1)
        #expect(shared.bytes(orMake: { [0xFF] }) == results[0])
    }
}
