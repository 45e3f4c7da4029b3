import Synchronization

/// A counter family for events off the hot path (notifications, webhook deliveries, HTTP requests), by label
/// values from small closed sets. Series named at creation are exposed at 0 from the start.
public final class LabeledCounter: MetricsSource {
    public let name: String
    private let help: String
    private let labelNames: [String]
    private let values = Mutex<[[String]: UInt64]>([:])

    public init(_ name: String, help: String, labels: [String], initial: [[String]] = []) {
        precondition(name.hasSuffix("_total"), "counter names end in _total")
        precondition(initial.allSatisfy { $0.count == labels.count })
        self.name = name
        self.help = help
        labelNames = labels
        values.withLock { values in for series in initial { values[series] = 0 } }
    }

    public func increment(_ labels: String..., by amount: UInt64 = 1) {
        precondition(labels.count == labelNames.count, "\(name) takes \(labelNames.count) labels")
        values.withLock { $0[labels, default: 0] &+= amount }
    }

    /// The value of one series, 0 if it never moved.
    public func value(_ labels: String...) -> UInt64 {
        values.withLock { $0[labels] ?? 0 }
    }

    /// The series whose first label is `value` (a tenant's), by their labels, with their values.
    public func series(whereFirstLabelIs value: String) -> [(labels: [String], value: UInt64)] {
        values.withLock { values in values.filter { $0.key.first == value }.map { ($0.key, $0.value) } }
    }

    public func collect(into text: inout PrometheusText) {
        let series = values.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        text.family(name, .counter, help: help)
        for (labels, value) in series {
            text.sample(name, labels: Array(zip(labelNames, labels)).map { (key: $0, value: $1) }, Double(value))
        }
    }
}

/// A histogram family off the hot path, by label values from small closed sets.
public final class LabeledHistogram: MetricsSource {
    public let name: String
    private let help: String
    private let labelNames: [String]
    private let buckets: HistogramBuckets
    private struct Series {
        var counts: [UInt64]
        var sumNanoseconds: UInt64 = 0
    }
    private let series = Mutex<[[String]: Series]>([:])

    public init(_ name: String, help: String, labels: [String], buckets: HistogramBuckets, initial: [[String]] = []) {
        precondition(name.hasSuffix("_seconds"), "durations are in seconds")
        self.name = name
        self.help = help
        labelNames = labels
        self.buckets = buckets
        let empty = Series(counts: Array(repeating: 0, count: buckets.count))
        series.withLock { series in for labels in initial { series[labels] = empty } }
    }

    public func observe(_ duration: Duration, _ labels: String...) {
        observe(nanoseconds: duration.metricNanoseconds, labels)
    }

    func observe(nanoseconds: UInt64, _ labels: [String]) {
        precondition(labels.count == labelNames.count, "\(name) takes \(labelNames.count) labels")
        let bucket = buckets.index(ofNanoseconds: nanoseconds)
        let empty = Series(counts: Array(repeating: 0, count: buckets.count))
        series.withLock { series in
            series[labels, default: empty].counts[bucket] &+= 1
            series[labels, default: empty].sumNanoseconds &+= nanoseconds
        }
    }

    /// How many observations one series has.
    public func count(_ labels: String...) -> UInt64 {
        series.withLock { $0[labels]?.counts.reduce(0, &+) ?? 0 }
    }

    public func collect(into text: inout PrometheusText) {
        let all = series.withLock { $0 }.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        text.family(name, .histogram, help: help)
        for (labels, value) in all {
            text.histogram(
                name, labels: zip(labelNames, labels).map { (key: $0, value: $1) }, buckets: buckets,
                counts: value.counts, sum: Double(value.sumNanoseconds) / 1e9)
        }
    }
}

/// A gauge read at scrape time (queue depths, open streams, pool state).
public struct GaugeFamily: MetricsSource {
    public let name: String
    private let help: String
    private let labelNames: [String]
    private let read: @Sendable () -> [([String], Double)]

    public init(_ name: String, help: String, labels: [String] = [], read: @escaping @Sendable () -> [([String], Double)]) {
        precondition(!name.hasSuffix("_total"), "gauges do not end in _total")
        self.name = name
        self.help = help
        labelNames = labels
        self.read = read
    }

    /// A gauge without labels.
    public init(_ name: String, help: String, value: @escaping @Sendable () -> Double) {
        self.init(name, help: help, labels: []) { [([], value())] }
    }

    public func collect(into text: inout PrometheusText) {
        text.family(name, .gauge, help: help)
        for (labels, value) in read() {
            text.sample(name, labels: zip(labelNames, labels).map { (key: $0, value: $1) }, value)
        }
    }
}
