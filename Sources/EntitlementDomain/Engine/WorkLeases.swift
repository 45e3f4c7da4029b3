#if canImport(Glibc)
import Glibc
#endif

extension CustomerEngine {
    /// Claims background work `name` (of `tenantID`, or `""` for work across tenants) for this instance for
    /// `duration`, renewing a lease it holds; false while another instance's lease runs. With one instance (SQLite)
    /// the claim always succeeds; instances sharing PostgreSQL do each piece of such work once.
    public func claimWork(tenantID: String = "", name: String, for duration: Duration) async throws(DomainError) -> Bool {
        let holder = instanceID
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return try await write { transaction, now throws -> (Bool, [Committed]) in
            let claimed = try transaction.claimWorkLease(
                tenantID: tenantID, name: name, holder: holder, now: now,
                until: UnixTime(milliseconds: now.milliseconds + milliseconds))
            return (claimed, [])
        }
    }

    /// This process among the instances sharing a database: the host name and process ID, in logs and leases.
    public static func defaultInstanceID() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : "localhost"
        return "\(host):\(getpid())"
    }
}
