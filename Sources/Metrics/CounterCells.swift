import Synchronization

/// Fixed-size arrays of counters, one array per shard: each event loop adds to its own shard, so the hot path's
/// increments never bounce a cache line between cores; a scrape sums the shards.
///
/// Increments are relaxed atomics: correct from any thread, cheap from the shard's own.
public final class CounterCells: @unchecked Sendable {
    public let shards: Int
    public let cellsPerShard: Int
    /// Each shard's cells start on their own cache line.
    private let stride: Int
    private let cells: UnsafeMutablePointer<Atomic<UInt64>>

    public init(shards: Int, cellsPerShard: Int) {
        precondition(shards > 0 && cellsPerShard >= 0)
        self.shards = shards
        self.cellsPerShard = cellsPerShard
        stride = (cellsPerShard + 7) / 8 * 8 + 8
        cells = .allocate(capacity: shards * stride)
        for index in 0..<(shards * stride) { (cells + index).initialize(to: Atomic(0)) }
    }

    deinit {
        cells.deinitialize(count: shards * stride)
        cells.deallocate()
    }

    @inline(__always)
    public func add(_ value: UInt64 = 1, cell: Int, shard: Int) {
        precondition(cell >= 0 && cell < cellsPerShard)
        cells[(shard % shards) * stride + cell].wrappingAdd(value, ordering: .relaxed)
    }

    /// The sum over shards (a moment's view: increments racing the scrape land in the next one).
    public func total(cell: Int) -> UInt64 {
        var sum: UInt64 = 0
        for shard in 0..<shards { sum &+= cells[shard * stride + cell].load(ordering: .relaxed) }
        return sum
    }
}
