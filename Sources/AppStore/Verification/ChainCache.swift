import Crypto
import Synchronization

/// Verified certificate chains by their exact bytes: leaf and intermediate DER → the leaf's key and the span of time
/// in which the chain verifies.
///
/// Only successes are stored, each with the window in which every certificate of the verified path is valid, so a hit
/// at another effective date is exactly what a fresh verification would say. Signatures are never cached: every token
/// still costs one ECDSA verification. Bounded; when full, the oldest entry is dropped.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        var leaf: [UInt8]
        var intermediate: [UInt8]

        /// Whole buffers at once: Array's own hashing feeds the hasher byte by byte, which shows up per token.
        func hash(into hasher: inout Hasher) {
            hasher.combine(leaf.count)
            leaf.withUnsafeBytes { hasher.combine(bytes: $0) }
            intermediate.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    struct Entry: Sendable {
        var leafKey: P256.PublicKey
        /// Unix seconds, inclusive at both ends (OpenSSL's notBefore <= t <= notAfter).
        var validFrom: Int64
        var validUntil: Int64
    }

    private struct State: ~Copyable {
        var entries: [Key: Entry] = [:]
        var insertionOrder: [Key] = []
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The leaf key when this chain was verified before and `time` is inside its window.
    func leafKey(for key: Key, at time: Int64) -> P256.PublicKey? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.validFrom <= time, time <= entry.validUntil else { return nil }
            return entry.leafKey
        }
    }

    func insert(_ entry: Entry, for key: Key) {
        guard capacity > 0 else { return }
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) == nil {
                state.insertionOrder.append(key)
            }
            while state.insertionOrder.count > capacity {
                state.entries[state.insertionOrder.removeFirst()] = nil
            }
        }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
