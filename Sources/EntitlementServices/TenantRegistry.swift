public import EntitlementDomain
import Synchronization

/// The tenants in force, swapped whole when the tenants file is reloaded (SIGHUP) so no call sees half a change.
public final class TenantRegistry: Sendable {
    private let current: Mutex<(directory: TenantDirectory, generation: UInt64)>
    let keyCache = ConnectionKeyCache()

    public init(_ directory: TenantDirectory) {
        current = Mutex((directory, 0))
    }

    public var directory: TenantDirectory { current.withLock { $0.directory } }

    /// The directory and a number that changes with every reload.
    var snapshot: (directory: TenantDirectory, generation: UInt64) { current.withLock { $0 } }

    public func replace(with directory: TenantDirectory) {
        current.withLock { $0 = (directory, $0.generation + 1) }
    }
}
