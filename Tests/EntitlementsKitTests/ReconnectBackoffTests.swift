import EntitlementsKit
import Testing

@Suite struct ReconnectBackoffTests {
    @Test func stepsDoubleFromTheInitialAndStopAtTheMaximum() {
        let backoff = ReconnectBackoff(initial: .milliseconds(500), maximum: .seconds(10))
        #expect((0..<8).map(backoff.step) == [
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10),
            .seconds(10),
        ])
        #expect(backoff.step(attempt: 10_000) == .seconds(10))
    }

    @Test func theWaitIsDrawnFromZeroToTheStep() {
        let backoff = ReconnectBackoff(initial: .seconds(1), maximum: .seconds(60))
        var random = SystemRandomNumberGenerator()
        for attempt in 0..<12 {
            let waits = (0..<200).map { _ in ReconnectBackoff.jitter(backoff.step(attempt: attempt), using: &random) }
            #expect(waits.allSatisfy { $0 >= .zero && $0 <= backoff.step(attempt: attempt) })
            // Full jitter: the waits spread over the whole range, not around the step.
            #expect(waits.contains { $0 < backoff.step(attempt: attempt) / 4 })
            #expect(waits.contains { $0 > backoff.step(attempt: attempt) * 3 / 4 })
        }
    }
}
