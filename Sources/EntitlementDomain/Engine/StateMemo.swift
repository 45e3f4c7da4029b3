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

    /// A retained `Stored`'s address, 0 until the first reader stores one. By hand rather than
    /// `AtomicLazyReference`, whose `load` runs unspecialized (about 650 instructions on every SyncStatus).
    private let stored = Atomic<UInt>(0)

    init() {}

    deinit {
        if let address = UnsafeRawPointer(bitPattern: stored.load(ordering: .acquiring)) {
            Unmanaged<Stored>.fromOpaque(address).release()
        }
    }

    /// The remembered bytes, or `make()`'s, remembered from now on.
    public func bytes(orMake make: () -> [UInt8]) -> [UInt8] {
        if let address = UnsafeRawPointer(bitPattern: stored.load(ordering: .acquiring)) {
            return Unmanaged<Stored>.fromOpaque(address).takeUnretainedValue().bytes
        }
        let made = Unmanaged.passRetained(Stored(make()))
        let (exchanged, winner) = stored.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        guard !exchanged, let address = UnsafeRawPointer(bitPattern: winner) else {
            return made.takeUnretainedValue().bytes
        }
        // Another reader stored first: its bytes are the ones kept.
        made.release()
        return Unmanaged<Stored>.fromOpaque(address).takeUnretainedValue().bytes
    }
}
