import Crypto

/// A tenant and an app user ID or a client address, as the first 128 bits of their SHA-256: every record is the
/// same 16 bytes whatever the ID's length, and no two IDs share one in practice (nor can anyone make them: that
/// would take a SHA-256 collision).
struct FailureKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(tenantID: String, _ bytes: [UInt8]) {
        // Tenant IDs hold no NUL, so the separator keeps ("a", "b\0c") and ("a\0b", "c") apart.
        let digest = SHA256.hash(Array(tenantID.utf8) + [0] + bytes)
        func word(_ offset: Int) -> UInt64 { digest[offset..<offset + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        high = word(0)
        low = word(8)
    }
}

/// One key's failures: how many (saturating) and when the last one was.
struct FailureRecord: Sendable, Equatable {
    var failures: UInt32
    var lastFailure: Int64
}

/// Failure records in bounded memory: two generations of at most `generationCapacity` records each. Records are
/// written to the current generation; when it is full it becomes the previous one and the previous one is dropped,
/// so a record is forgotten only after at least `generationCapacity` other keys failed since it last did.
struct FailureTable: Sendable {
    let generationCapacity: Int
    private var current: [FailureKey: FailureRecord] = [:]
    private var previous: [FailureKey: FailureRecord] = [:]

    init(generationCapacity: Int) {
        precondition(generationCapacity >= 1)
        self.generationCapacity = generationCapacity
    }

    subscript(key: FailureKey) -> FailureRecord? {
        current[key] ?? previous[key]
    }

    mutating func store(_ record: FailureRecord, for key: FailureKey) {
        current[key] = record
        previous[key] = nil
        if current.count >= generationCapacity {
            previous = current
            current = [:]
        }
    }

    /// Records held, both generations.
    var count: Int { current.count + previous.count }
}
