import Synchronization

/// Bytes an upper layer derives from one cached customer state (the API's encoding of it), made once.
///
/// A cache entry never changes, it is replaced, so what was derived from it stays right for as long as the entry is
/// served. Lock-free: concurrent first readers may both derive the bytes; one result is kept.
public final class StateMemo: Sendable {
    private final class Stored: Sendable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }
    }

    private let stored = AtomicLazyReference<Stored>()

    init() {}

    /// The remembered bytes, or `make()`'s, remembered from now on.
    public func bytes(orMake make: () -> [UInt8]) -> [UInt8] {
        if let stored = stored.load() { return stored.bytes }
        return stored.storeIfNil(Stored(make())).bytes
    }
}
