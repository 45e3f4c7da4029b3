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

    /// The state signed (``StatusClaims``), re-made once too old: an object, so a customer whose status nobody signs
    /// pays a pointer for it.
    private let signed = Mutex<SignedStatus?>(nil)

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

    /// The remembered signed form of the state when `reusable` accepts it, else `make()`'s, remembered from now on.
    public func signedStatus<E: Error>(
        reusable: (SignedStatus) -> Bool, orMake make: () throws(E) -> SignedStatus
    ) throws(E) -> String {
        if let kept = signed.withLock({ $0 }), reusable(kept) { return kept.token }
        let made = try make()
        signed.withLock { $0 = made }
        return made.token
    }
}

/// A customer state as a compact JWS, with what decides whether it may be served again.
public final class SignedStatus: Sendable {
    public let token: String
    /// The key that signed it: a reload that puts another key under the same kid must not keep serving it.
    public let key: StatusSigningSettings.Key
    /// Its `exp - iat`, the tenant's offline validity when it was signed.
    public let validitySeconds: Int64
    /// Its `iat`, seconds since the epoch.
    public let issuedAt: Int64

    public init(token: String, key: StatusSigningSettings.Key, validitySeconds: Int64, issuedAt: Int64) {
        self.token = token
        self.key = key
        self.validitySeconds = validitySeconds
        self.issuedAt = issuedAt
    }
}
