import Synchronization

/// Every source a scrape reads, in the order they were added (sources added later, such as the server's gRPC
/// metrics once it is bound, join the next scrape).
public final class MetricsRegistry: Sendable {
    private let sources = Mutex<[(key: String?, source: any MetricsSource)]>([])

    public init() {}

    public func add(_ source: any MetricsSource) {
        sources.withLock { $0.append((nil, source)) }
    }

    public func add(_ more: [any MetricsSource]) {
        sources.withLock { $0.append(contentsOf: more.map { (nil, $0) }) }
    }

    /// Adds `source` under `key`, in place of the source that had the key (a restarted listener's metrics replace
    /// the old listener's, so no family appears twice).
    public func set(_ source: any MetricsSource, key: String) {
        sources.withLock { sources in
            if let index = sources.firstIndex(where: { $0.key == key }) {
                sources[index].source = source
            } else {
                sources.append((key, source))
            }
        }
    }

    /// The exposition text of every source.
    public func render() -> [UInt8] {
        var text = PrometheusText()
        for (_, source) in sources.withLock({ $0 }) { source.collect(into: &text) }
        return text.bytes
    }
}
