/// A histogram's upper bounds in seconds, and the bucket a duration falls in.
public struct HistogramBuckets: Sendable {
    /// Ascending, without `+Inf` (every histogram has that bucket as well).
    public let upperBounds: [Double]
    private let upperBoundsNanoseconds: [UInt64]

    public init(_ upperBounds: [Double]) {
        precondition(zip(upperBounds, upperBounds.dropFirst()).allSatisfy { $0 < $1 }, "bounds must ascend")
        self.upperBounds = upperBounds
        upperBoundsNanoseconds = upperBounds.map { UInt64($0 * 1e9) }
    }

    /// client_golang's `DefBuckets`: the buckets the grpc-ecosystem histograms have, so dashboards match.
    public static let standard = HistogramBuckets([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

    /// For latencies that should be milliseconds (a push after a commit). 7.5 ms tells a p99 under a 10 ms target
    /// from one at it.
    public static let fine = HistogramBuckets(
        [0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

    /// For delays a remote party adds (a store's notification from signing to commit): seconds to hours.
    public static let lag = HistogramBuckets([0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400])

    /// Buckets including `+Inf`.
    public var count: Int { upperBounds.count + 1 }

    /// The bucket of a duration in nanoseconds (`le` is inclusive, as Prometheus defines it).
    public func index(ofNanoseconds nanoseconds: UInt64) -> Int {
        for (index, bound) in upperBoundsNanoseconds.enumerated() where nanoseconds <= bound {
            return index
        }
        return upperBoundsNanoseconds.count
    }
}

extension Duration {
    /// Whole nanoseconds, 0 for negative durations (clock steps), saturating.
    public var metricNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ UInt64(attoseconds / 1_000_000_000)
    }
}
