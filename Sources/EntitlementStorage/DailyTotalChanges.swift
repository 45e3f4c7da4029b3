import EntitlementDomain

/// A table of daily totals (`revenue_daily`, `subscription_daily` and their ungrouped forms): rows keyed by day and
/// group whose other columns are sums, a change added to its row by one upsert.
struct DailyTotalsTable: Sendable, Hashable {
    let name: String
    /// The key's columns, comma-separated, in the order of a change's key values.
    let key: String
    /// Adds a change (its key's values, then its sums) to its row, creating the row the first time.
    let addSQL: String

    /// `sums`: the summed columns, in the order of a change's sums.
    init(name: String, key: String, sums: [String]) {
        self.name = name
        self.key = key
        let placeholders = Array(repeating: "?", count: key.split(separator: ",").count + sums.count)
        let additions = sums.map { "\($0) = \(name).\($0) + excluded.\($0)" }
        addSQL = """
            INSERT INTO \(name) (\(key), \(sums.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))
            ON CONFLICT (\(key)) DO UPDATE SET \(additions.joined(separator: ", "))
            """
    }

    static func == (a: Self, b: Self) -> Bool { a.name == b.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// The changes a write transaction makes to the daily totals, summed per row in memory and added when it commits
/// (``write(to:)``): a group commit's burst of purchases on one day adds to a few rows once, rather than each purchase
/// to each of its rows (what the rollups cost a write: BENCHMARKS.md, issue 40). The totals are only read by
/// metrics, never inside a write, so adding at the commit changes no answer.
///
/// A write a group rolls back to its savepoint takes its changes with it (``dropWrite()``).
struct DailyTotalChanges {
    private struct Row: Hashable {
        var table: DailyTotalsTable
        var key: [SQLValue]
    }

    /// The changes of the writes kept so far.
    private var kept: [Row: [Int64]] = [:]
    /// The changes of the write running, summed when it is kept.
    private var running: [(row: Row, sums: [Int64])] = []

    /// Whether no write kept so far changed a total.
    var isEmpty: Bool { kept.isEmpty }

    /// Adds `sums` to the row of `table` with `key`. Sums wrap rather than trap: they are the totals' own additions,
    /// done earlier.
    mutating func add(_ table: DailyTotalsTable, key: [SQLValue], sums: [Int64]) {
        running.append((Row(table: table, key: key), sums))
    }

    /// The running write succeeded: its changes are the transaction's.
    mutating func keepWrite() {
        for (row, sums) in running {
            if let existing = kept[row] {
                kept[row] = zip(existing, sums).map { $0 &+ $1 }
            } else {
                kept[row] = sums
            }
        }
        running.removeAll(keepingCapacity: true)
    }

    /// The running write was rolled back: its changes are forgotten.
    mutating func dropWrite() {
        running.removeAll(keepingCapacity: true)
    }

    /// Adds the kept changes to the database, in the order of their rows: two PostgreSQL transactions adding to the
    /// same rows then wait for each other in one order, never in a cycle. The statements are sent, not flushed
    /// (``SQLExecutor/flush()``): a group commit's travel with its notification.
    func write(to db: some SQLExecutor) throws(StorageError) {
        let rows = kept.filter { $0.value.contains { $0 != 0 } }.sorted { Self.precedes($0.key, $1.key) }
        for (row, sums) in rows {
            try db.send(row.table.addSQL, row.key + sums.map(SQLValue.integer), unlessOneRow: nil)
        }
    }

    private static func precedes(_ a: Row, _ b: Row) -> Bool {
        guard a.table.name == b.table.name else { return a.table.name < b.table.name }
        for (x, y) in zip(a.key, b.key) where x != y { return x.precedes(y) }
        return a.key.count < b.key.count
    }
}

extension SQLValue {
    /// An order of values for sorting keys: integers, then texts, then blobs, then null.
    fileprivate func precedes(_ other: SQLValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .integer(let b)): a < b
        case (.text(let a), .text(let b)): a < b
        case (.blob(let a), .blob(let b)): a.lexicographicallyPrecedes(b)
        default: rank < other.rank
        }
    }

    private var rank: Int {
        switch self {
        case .integer: 0
        case .text: 1
        case .blob: 2
        case .null: 3
        }
    }
}
