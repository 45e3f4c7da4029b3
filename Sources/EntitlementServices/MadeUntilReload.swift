import EntitlementDomain
import Synchronization

/// Things made from a tenant's settings (a verifier, an API client, a key file's keys), kept by key until the tenants
/// file is reloaded: the first use after a reload makes them again, since the files they were read from may hold
/// something else under the same path.
final class MadeUntilReload<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let made = Mutex<(generation: UInt64, byKey: [Key: Value])>((0, [:]))
    private let tenants: TenantRegistry

    init(tenants: TenantRegistry) {
        self.tenants = tenants
    }

    /// The value kept for `key` since the last reload, else `make()`'s, kept (unless another caller's came first).
    func value(for key: Key, make: () throws(DomainError) -> Value) throws(DomainError) -> Value {
        let generation = tenants.generation
        if let kept = made.withLock({ $0.generation == generation ? $0.byKey[key] : nil }) { return kept }
        let value = try make()
        return made.withLock { made in
            if made.generation < generation { made = (generation, [:]) }
            // Made before a reload that another caller has seen already: used once, not kept.
            guard made.generation == generation else { return value }
            if let raced = made.byKey[key] { return raced }
            made.byKey[key] = value
            return value
        }
    }
}
