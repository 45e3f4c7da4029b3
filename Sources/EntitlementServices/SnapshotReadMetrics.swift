public import EntitlementDomain
public import Metrics

/// The reads of customers the cache did not hold (``Customers/snapshotReadCounts``): how many went to the database,
/// how many calls shared a read already under way, how many were refused because too many customers were waiting,
/// and how many reads run and wait now.
public struct SnapshotReadMetrics: MetricsSource {
    let customers: Customers

    public init(customers: Customers) {
        self.customers = customers
    }

    public func collect(into text: inout PrometheusText) {
        let counts = customers.snapshotReadCounts
        let families: [(String, PrometheusText.Kind, String, Int)] = [
            (
                "entitlementd_snapshot_reads_total", .counter,
                "Customers read from the database for calls that missed the cache.", counts.reads
            ),
            (
                "entitlementd_snapshot_reads_coalesced_total", .counter,
                "Calls that missed the cache and shared a read of their customer already under way.",
                counts.coalesced
            ),
            (
                "entitlementd_snapshot_reads_refused_total", .counter,
                "Calls that missed the cache and were answered UNAVAILABLE: too many customers were waiting to be read.",
                counts.refused
            ),
            (
                "entitlementd_snapshot_reads_in_flight", .gauge, "Reads of customers that missed the cache running now.",
                counts.inFlight
            ),
            (
                "entitlementd_snapshot_reads_waiting", .gauge,
                "Customers that missed the cache waiting for a read ([storage] max_snapshot_reads) to be free.",
                counts.waiting
            ),
        ]
        for (name, kind, help, value) in families {
            text.family(name, kind, help: help)
            text.sample(name, Double(value))
        }
    }
}
