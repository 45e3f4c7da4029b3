public import EntitlementDomain
import Synchronization

/// The tenants in force, swapped whole when the tenants file is reloaded (SIGHUP) so no call sees half a change.
public final class TenantRegistry: Sendable {
    private let current: Mutex<TenantDirectory>

    public init(_ directory: TenantDirectory) {
        current = Mutex(directory)
    }

    public var directory: TenantDirectory { current.withLock { $0 } }

    public func replace(with directory: TenantDirectory) {
        current.withLock { $0 = directory }
    }
}
