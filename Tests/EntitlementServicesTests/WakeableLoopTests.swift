import CivilCalendar
@testable import EntitlementServices
import Synchronization
import Testing

/// The background loop behind the acknowledger and the voided-purchases poll: one run at a time, sleeping as long as
/// the body asks, woken early by new work, stopped after the run in progress.
@Suite struct WakeableLoopTests {
    /// Counts the body's runs and lets a test wait for the next one, or hold a run until it says.
    final class Runs: Sendable {
        private struct State {
            var count = 0
            var running = 0
            var mostAtOnce = 0
            var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
            var held: Set<Int> = []
            var releases: [Int: CheckedContinuation<Void, Never>] = [:]
        }

        private let state = Mutex(State())
        let delay: @Sendable (Int) -> Duration

        init(delay: @escaping @Sendable (Int) -> Duration = { _ in .seconds(Seconds.perHour) }) { self.delay = delay }

        /// Runs started so far.
        var count: Int { state.withLock { $0.count } }
        var mostAtOnce: Int { state.withLock { $0.mostAtOnce } }

        /// Run `number` (1 for the first) waits in the body until ``release(_:)``.
        func hold(_ number: Int) { state.withLock { _ = $0.held.insert(number) } }

        func release(_ number: Int) {
            let continuation = state.withLock { state in
                state.held.remove(number)
                return state.releases.removeValue(forKey: number)
            }
            continuation?.resume()
        }

        /// The body.
        func run() async -> Duration {
            let (number, held) = state.withLock { state in
                state.count += 1
                state.running += 1
                state.mostAtOnce = max(state.mostAtOnce, state.running)
                return (state.count, state.held.contains(state.count))
            }
            if held {
                await withCheckedContinuation { continuation in
                    let released = state.withLock { state in
                        guard state.held.contains(number) else { return true }
                        state.releases[number] = continuation
                        return false
                    }
                    if released { continuation.resume() }
                }
            }
            let ready = state.withLock { state in
                state.running -= 1
                let ready = state.waiters.filter { $0.count <= number }
                state.waiters.removeAll { $0.count <= number }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
            return delay(number)
        }

        /// Returns once run `number` has started (or fails the test after `seconds`: 60 by default, since the whole
        /// suite shares two cores in CI).
        func waitForStart(_ number: Int, seconds: Double = 60) async throws {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while count < number {
                guard ContinuousClock.now < deadline else { throw WaitedTooLong(runs: number) }
                try await Task.sleep(for: .milliseconds(5))
            }
        }

        /// Returns once `count` runs have ended (or fails the test after `seconds`).
        func waitFor(_ count: Int, seconds: Double = 60) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await withCheckedContinuation { continuation in
                        let done = self.state.withLock { state in
                            guard state.count - state.running < count else { return true }
                            state.waiters.append((count, continuation))
                            return false
                        }
                        if done { continuation.resume() }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                    throw WaitedTooLong(runs: count)
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        }
    }

    struct WaitedTooLong: Error, CustomStringConvertible {
        var runs: Int
        var description: String { "run \(runs) did not come" }
    }

    @Test func theBodyRunsAtOnceThenSleepsAsLongAsItAsks() async throws {
        let runs = Runs()
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitFor(1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(runs.count == 1, "asleep for an hour")
        await loop.stop()
    }

    @Test func aShortDelayRunsTheBodyAgain() async throws {
        let runs = Runs(delay: { _ in .milliseconds(10) })
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitFor(5)
        await loop.stop()
        #expect(runs.mostAtOnce == 1)
    }

    @Test func aWakeCutsTheSleepShort() async throws {
        let runs = Runs()
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitFor(1)
        // Past the run, into the sleep.
        try await Task.sleep(for: .milliseconds(50))
        loop.wake()
        try await runs.waitFor(2)
        try await Task.sleep(for: .milliseconds(50))
        loop.wake()
        try await runs.waitFor(3)
        await loop.stop()
    }

    @Test func aWakeDuringARunSkipsTheNextSleep() async throws {
        let runs = Runs()
        runs.hold(1)
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitForStart(1)
        loop.wake()
        runs.release(1)
        try await runs.waitFor(2)
        await loop.stop()
        #expect(runs.mostAtOnce == 1)
    }

    @Test func manyWakesWhileAsleepRunTheBodyAtMostTwiceAndNeverTwiceAtATime() async throws {
        let runs = Runs()
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitFor(1)
        // Well into the sleep (a wake before it would only skip it, and a later one wake the next).
        try await Task.sleep(for: .milliseconds(200))
        for _ in 0..<10 { loop.wake() }
        try await runs.waitFor(2)
        try await Task.sleep(for: .milliseconds(200))
        // The first wake ends the sleep; one landing after the sleep ended but before the body began counts as
        // work during a run, and buys one more run (more than needed, never less). Ten runs would be a bug.
        #expect((2...3).contains(runs.count))
        #expect(runs.mostAtOnce == 1)
        await loop.stop()
    }

    @Test func stopEndsASleepAtOnce() async throws {
        let runs = Runs()
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitFor(1)
        let clock = ContinuousClock()
        let took = try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await loop.stop() }
                group.addTask {
                    try await Task.sleep(for: .seconds(10))
                    throw WaitedTooLong(runs: 0)
                }
                try await group.next()
                group.cancelAll()
            }
        }
        #expect(took < .seconds(5))
        #expect(runs.count == 1)
    }

    @Test func stopWaitsForTheRunInProgressAndNoneFollows() async throws {
        let runs = Runs(delay: { _ in .zero })
        runs.hold(1)
        let loop = WakeableLoop()
        loop.start { await runs.run() }
        try await runs.waitForStart(1)
        let stopped = Task { await loop.stop() }
        try await Task.sleep(for: .milliseconds(50))
        runs.release(1)
        await stopped.value
        #expect(runs.count == 1, "a zero delay after stop is not another run")
        loop.wake()
        try await Task.sleep(for: .milliseconds(100))
        #expect(runs.count == 1)
    }
}
