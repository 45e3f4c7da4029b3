/// A counter family whose series are all known at creation (closed label sets, such as a cause × change): each
/// series is a lock-free cell, addressed by its index in `series`, and every series is exposed from the start.
public final class CounterFamily: MetricsSource {
    public let name: String
    private let help: String
    private let labelNames: [String]
    private let series: [[String]]
    private let cells: CounterCells

    public init(_ name: String, help: String, labels: [String], series: [[String]]) {
        precondition(name.hasSuffix("_total"), "counter names end in _total")
        precondition(series.allSatisfy { $0.count == labels.count })
        self.name = name
        self.help = help
        labelNames = labels
        self.series = series
        cells = CounterCells(shards: 1, cellsPerShard: series.count)
    }

    /// The index of the series with these label values; nil when it is not one of the family's.
    public func index(_ labels: String...) -> Int? {
        series.firstIndex(of: labels)
    }

    @inline(__always)
    public func increment(_ index: Int, by amount: UInt64 = 1) {
        cells.add(amount, cell: index, shard: 0)
    }

    public func value(_ index: Int) -> UInt64 {
        cells.total(cell: index)
    }

    public func collect(into text: inout PrometheusText) {
        text.family(name, .counter, help: help)
        for (index, labels) in series.enumerated() {
            text.sample(name, labels: zip(labelNames, labels).map { (key: $0, value: $1) }, Double(value(index)))
        }
    }
}

/// A histogram without labels whose observations are lock-free (one atomic add per bucket and one for the sum), for
/// paths too hot for a mutex.
public final class Histogram: MetricsSource {
    public let name: String
    private let help: String
    private let buckets: HistogramBuckets
    /// The buckets' cells, then the sum in nanoseconds.
    private let cells: CounterCells

    public init(_ name: String, help: String, buckets: HistogramBuckets) {
        precondition(name.hasSuffix("_seconds"), "durations are in seconds")
        self.name = name
        self.help = help
        self.buckets = buckets
        cells = CounterCells(shards: 1, cellsPerShard: buckets.count + 1)
    }

    public func observe(_ duration: Duration) {
        let nanoseconds = duration.metricNanoseconds
        cells.add(cell: buckets.index(ofNanoseconds: nanoseconds), shard: 0)
        cells.add(nanoseconds, cell: buckets.count, shard: 0)
    }

    /// How many observations it has.
    public var count: UInt64 {
        (0..<buckets.count).reduce(0) { $0 &+ cells.total(cell: $1) }
    }

    public func collect(into text: inout PrometheusText) {
        text.family(name, .histogram, help: help)
        text.histogram(
            name, labels: [], buckets: buckets, counts: (0..<buckets.count).map { cells.total(cell: $0) },
            sum: Double(cells.total(cell: buckets.count)) / 1e9)
    }
}
