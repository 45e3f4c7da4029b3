import EntitlementDomain
import Testing

@testable import EntitlementStorage

@Suite("Group commit: writes sharing one transaction, each in its own savepoint")
struct GroupCommitTests {
    @Test func aFailingWriteIsUndoneAloneAndTheOthersCommit() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let failures = try repository.writeGroup([
            { transaction in try transaction.customer("t", "alice") },
            { transaction in
                let bob = try transaction.customer("t", "bob")
                try transaction.insertGrant(makeGrant("g-bob", tenant: "t", customer: bob.id, expiresAt: 10))
                throw Boom()
            },
            { transaction in
                let carol = try transaction.customer("t", "carol")
                try transaction.appendEvent(makeEvent(tenant: "t", customer: carol.id, version: 1), nextChangeAt: nil)
            },
        ])
        #expect(failures.count == 3)
        #expect(failures[0] == nil)
        #expect(failures[1] is Boom)
        #expect(failures[2] == nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") != nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "bob") == nil)
        #expect(try repository.grant(tenantID: "t", grantID: "g-bob") == nil)
        let carol = try #require(try repository.snapshot(tenantID: "t", appUserID: "carol"))
        #expect(carol.customer.version == 1)
    }

    @Test func aStorageErrorInOneWriteLeavesTheTransactionUsableForTheNext() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        _ = try repository.write { transaction in try transaction.customer("t", "alice") }
        let failures = try repository.writeGroup([
            // A duplicate key: on PostgreSQL this aborts the statement's savepoint, not the group.
            { transaction in try transaction.customer("t", "dave"); try transaction.customer("t", "alice") },
            { transaction in try transaction.customer("t", "erin") },
        ])
        #expect((failures[0] as? StorageError)?.code == .conflict)
        #expect(failures[1] == nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "dave") == nil)
        #expect(try repository.snapshot(tenantID: "t", appUserID: "erin") != nil)
    }

    @Test func laterWritesSeeEarlierOnesAndVersionsStayGapFree() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        let customer = try repository.write { transaction in try transaction.customer("t", "alice") }
        // Each write appends the customer's next version as it reads it inside the group; the third one fails
        // after appending, so the fourth must reuse its version.
        func appendNext(failing: Bool) -> (any StorageTransaction) throws -> Void {
            { transaction in
                let current = try #require(try transaction.snapshot(tenantID: "t", customerID: customer.id))
                try transaction.appendEvent(
                    makeEvent(tenant: "t", customer: customer.id, version: current.customer.version + 1),
                    nextChangeAt: nil)
                if failing { throw Boom() }
            }
        }
        let failures = try repository.writeGroup([
            appendNext(failing: false), appendNext(failing: false), appendNext(failing: true), appendNext(failing: false),
        ])
        #expect(failures.map { $0 == nil } == [true, true, false, true])
        let versions = try repository.events(tenantID: "t", customerID: customer.id, afterVersion: 0, limit: 10).map(\.version)
        #expect(versions == [1, 2, 3])
    }

    @Test func anEmptyGroupAndAllFailingGroupsCommitNothing() throws {
        let database = try TemporaryDatabase()
        let repository = try database.open()
        #expect(try repository.writeGroup([]).isEmpty)
        let failures = try repository.writeGroup([
            { transaction in try transaction.customer("t", "alice"); throw Boom() },
            { _ in throw Boom() },
        ])
        #expect(failures.allSatisfy { $0 is Boom })
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") == nil)
        // The repository is still usable.
        _ = try repository.write { transaction in try transaction.customer("t", "alice") }
        #expect(try repository.snapshot(tenantID: "t", appUserID: "alice") != nil)
    }
}
