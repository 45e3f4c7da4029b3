import Metrics
import PosixIO

/// A timer due every second on each loop: how late it runs is how long the loop's thread was busy with other work
/// (a slow handler on the loop, a burst of handshakes), a delay every connection of that loop shares.
enum EventLoopLagProbe {
    static let interval = Duration.seconds(1)

    /// On `loop`'s thread. The timer is dropped with the loop's others when it stops.
    static func start(on loop: EventLoop, into histogram: Histogram) {
        let deadline = ContinuousClock.now + interval
        loop.scheduleTimer(at: deadline) {
            histogram.observe(deadline.duration(to: .now))
            start(on: loop, into: histogram)
        }
    }
}
