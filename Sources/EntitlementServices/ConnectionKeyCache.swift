public import EntitlementDomain
import Crypto
import Synchronization

/// The last API key each connection presented and what it authenticated as.
///
/// Clients send the same key on every call of a connection; comparing it with the remembered one (in constant
/// time) spares a SHA-256 and a scan of every configured hash per call. An entry is valid only for the tenants
/// generation it was made under, so a reload (SIGHUP) takes effect at once; the cache forgets everything when full.
final class ConnectionKeyCache: Sendable {
    private struct Entry {
        var key: [UInt8]
        var generation: UInt64
        var tenant: Tenant
        var kind: APIKey.Kind
    }

    private let entries = Mutex<[UInt64: Entry]>([:])
    private let capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The remembered result for `key` on `connectionID`, if it is the same key under the same tenants.
    func lookup(connectionID: UInt64, key: String, generation: UInt64) -> (tenant: Tenant, kind: APIKey.Kind)? {
        guard let entry = entries.withLock({ $0[connectionID] }), entry.generation == generation else {
            return nil
        }
        var key = key
        let same = key.withUTF8 { ConstantTime.equals($0, entry.key) }
        return same ? (entry.tenant, entry.kind) : nil
    }

    func remember(connectionID: UInt64, key: String, generation: UInt64, tenant: Tenant, kind: APIKey.Kind) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[connectionID] = Entry(key: Array(key.utf8), generation: generation, tenant: tenant, kind: kind)
        }
    }
}
