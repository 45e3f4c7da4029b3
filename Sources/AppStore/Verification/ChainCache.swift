import Crypto
import Synchronization

/// Verified certificate chains by their exact text: leaf and intermediate as the `x5c` header carries them (base64
/// DER) → the leaf's key and the span of time in which the chain verifies. Keyed by the text, a hit costs neither
/// decoding nor parsing a certificate.
///
/// Only successes are stored, each with the window in which every certificate of the verified path is valid, so a hit
/// at another effective date is exactly what a fresh verification would say. Signatures are never cached: every token
/// still costs one ECDSA verification. Bounded; when full, the oldest entry is dropped.
final class ChainCache: Sendable {
    struct Key: Hashable, Sendable {
        var leaf: String
        var intermediate: String

        /// Each certificate's length and last 32 characters (the end of its signature, different for every
        /// certificate), not its whole 1–2 KB text: a lookup is made for every token, and equality still compares
        /// every byte, so a collision can only cost a miss.
        func hash(into hasher: inout Hasher) {
            Self.combine(leaf, into: &hasher)
            Self.combine(intermediate, into: &hasher)
        }

        private static func combine(_ certificate: String, into hasher: inout Hasher) {
            hasher.combine(certificate.utf8.count)
            for byte in certificate.utf8.suffix(32) { hasher.combine(byte) }
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
