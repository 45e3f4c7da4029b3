import Foundation
import Testing
import TestSupport

@testable import EntitlementStorage

/// Work locks on PostgreSQL: PostgreSQL ends a locking session that falls silent (a frozen holder's: the interop test
/// test_postgres_singleton_work freezes one), so a running holder must keep its session talking.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, "ENTITLEMENTD_TEST_POSTGRES names no PostgreSQL"))
struct PostgresWorkLockTests {
    @Test func aRunningHolderKeepsItsWorkLongPastTheSessionTimeout() throws {
        let conninfo = try TestDatabase.postgresDatabase(for: "work-locks-" + UUID().uuidString)
        let holder = PostgresWorkLocks(conninfo: conninfo, sessionTimeoutMilliseconds: 500)
        let other = PostgresWorkLocks(conninfo: conninfo, sessionTimeoutMilliseconds: 500)
        #expect(try holder.holds(tenantID: "t", name: "poll"))
        // Four timeouts without the holder asking: only its keeper's pings keep the session.
        Thread.sleep(forTimeInterval: 2)
        #expect(try !other.holds(tenantID: "t", name: "poll"))
        #expect(try holder.holds(tenantID: "t", name: "poll"))
    }
}
