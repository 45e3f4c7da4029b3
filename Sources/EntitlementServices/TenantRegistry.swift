public import EntitlementDomain
import Synchronization

/// The tenants in force, swapped whole when the tenants file is reloaded (SIGHUP) so no call sees half a change.
public final class TenantRegistry: Sendable {
    private let current: Mutex<(directory: TenantDirectory, generation: UInt64)>
    /// `current`'s generation, read without the lock: checking a remembered key on every call needs only it.
    private let currentGeneration = Atomic<UInt64>(0)

    public init(_ directory: TenantDirectory) {
        current = Mutex((directory, 0))
    }

    public var directory: TenantDirectory { current.withLock { $0.directory } }

    /// The directory and a number that changes with every reload.
    var snapshot: (directory: TenantDirectory, generation: UInt64) { current.withLock { $0 } }

    /// The number that changes with every reload.
    var generation: UInt64 { currentGeneration.load(ordering: .acquiring) }

    public func replace(with directory: TenantDirectory) {
        current.withLock { current in
            current = (directory, current.generation + 1)
            currentGeneration.store(current.generation, ordering: .releasing)
        }
    }
}
