@testable import PosixIO
import Testing

/// The epoll timeout until the next timer, from one nanosecond to the largest deadline a `grpc-timeout` can ask for.
@Suite struct TimerHeapTests {
    @Test(arguments: [
        (Duration.nanoseconds(1), Int32(1)), (.milliseconds(1), 1), (.milliseconds(1) + .nanoseconds(1), 2),
        (.seconds(2_147_483), 2_147_483_000), (.seconds(2_147_483) + .milliseconds(647), .max),
        (.seconds(2_147_483) + .milliseconds(648), .max), (.seconds(2_147_484), .max),
        (.seconds(Int64(99_999_999) * 3_600), .max),
        (.seconds(Int64.max), .max),
    ])
    func theWaitRoundsUpAndStopsAtInt32(delay: Duration, milliseconds: Int32) {
        var heap = TimerHeap()
        let now = ContinuousClock.now
        _ = heap.schedule(at: now + delay) {}
        #expect(heap.millisecondsUntilNext(now: now) == milliseconds)
    }

    @Test func aTimerDueOrPastWaitsNothingAndNoTimerWaitsForever() {
        var heap = TimerHeap()
        let now = ContinuousClock.now
        #expect(heap.millisecondsUntilNext(now: now) == -1)
        let id = heap.schedule(at: now) {}
        #expect(heap.millisecondsUntilNext(now: now + .seconds(1)) == 0)
        heap.cancel(id)
        #expect(heap.millisecondsUntilNext(now: now) == -1)
    }
}
