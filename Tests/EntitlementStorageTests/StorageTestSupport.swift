import EntitlementDomain
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import EntitlementStorage

/// A database file in a fresh temporary directory, removed when the value goes away.
final class TemporaryDatabase: Sendable {
    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("entitlement-storage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("entitlements.sqlite").path
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The repository the run tests: this file, or its PostgreSQL database (``TestDatabase``).
    func open(synchronous: SQLiteRepository.Synchronous = .normal, readConnections: Int = 4) throws
        -> SQLRepository
    {
        guard !TestDatabase.isPostgres else {
            return try PostgresRepository(conninfo: try TestDatabase.postgresDatabase(for: path))
        }
        return try SQLiteRepository(path: path, synchronous: synchronous, readConnections: readConnections)
    }

    /// The first column of the first row of `sql`, behind the repository's back, on whichever database it uses.
    func scalar(_ sql: String) throws -> Int64? {
        guard !TestDatabase.isPostgres else {
            let connection = try PostgresConnection(conninfo: try TestDatabase.postgresDatabase(for: path))
            return try PostgresExecutor(connection: connection, locksRows: false).row(sql, []) { $0.int64(0) }
        }
        return try rawConnection().row(sql, []) { $0.int64(0) }
    }

    /// A raw connection to the same file, for inspecting or tampering with it behind the repository's back.
    func rawConnection() throws -> SQLiteConnection {
        try SQLiteConnection(path: path, mode: .readWrite)
    }
}

func time(_ milliseconds: Int64) -> UnixTime { UnixTime(milliseconds: milliseconds) }

extension StorageTransaction {
    @discardableResult
    func customer(_ tenantID: String, _ appUserID: String, anonymous: Bool = false, at: Int64 = 1_000) throws
        -> CustomerRecord
    {
        try createCustomer(tenantID: tenantID, appUserID: appUserID, isAnonymous: anonymous, at: time(at))
    }
}

func makeGrant(
    _ grantID: String, tenant: String, customer: Int64, entitlement: String = "pro", startsAt: Int64 = 1_000,
    expiresAt: Int64? = nil, idempotencyKey: String? = nil
) -> GrantRecord {
    GrantRecord(
        grantID: grantID, tenantID: tenant, customerID: customer, entitlementID: entitlement,
        startsAt: time(startsAt), expiresAt: expiresAt.map(time), revokedAt: nil, reason: "support",
        revocationReason: "", idempotencyKey: idempotencyKey)
}

func makeEvent(
    tenant: String, customer: Int64, version: UInt64, cause: EventCause = .grant, status: [UInt8] = [0x08, 0x01]
) -> EventRecord {
    EventRecord(
        tenantID: tenant, customerID: customer, version: version, cause: cause, change: .statusChanged, reason: "v\(version)",
        occurredAt: time(1_000 &+ Int64(truncatingIfNeeded: version)), status: status, relatedAppUserID: "",
        referenceID: "ref-\(version)")
}

func makePurchase(
    _ originalTransactionID: String, tenant: String, customer: Int64?, store: Store = .appStore,
    transactionID: String? = nil, product: String = "monthly", entitlements: [String] = ["pro"],
    expiresAt: Int64? = 5_000, signedAt: Int64 = 1_000, appAccountToken: String = ""
) -> StorePurchase {
    StorePurchase(
        tenantID: tenant, store: store, originalTransactionID: originalTransactionID,
        transactionID: transactionID ?? originalTransactionID, customerID: customer, productID: product,
        productType: "Auto-Renewable Subscription", entitlementIDs: entitlements, environment: .sandbox,
        purchasedAt: time(1_000), originalPurchaseAt: time(1_000), expiresAt: expiresAt.map(time), revokedAt: nil,
        revocationReason: "", ownership: .purchased, willRenew: true,
        appAccountToken: appAccountToken, offerType: "", signedAt: time(signedAt),
        updatedAt: time(signedAt + 1))
}

/// Expects `body` to throw a `StorageError` with `code`, and returns it.
@discardableResult
func expectStorageError<T>(
    _ code: StorageError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) -> StorageError? {
    do {
        _ = try body()
        Issue.record("expected a \(code) error, got success", sourceLocation: sourceLocation)
        return nil
    } catch let error as StorageError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a StorageError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Thread-safe ordered log of what happened, for concurrency tests.
final class Timeline: Sendable {
    private let entries = Mutex<[String]>([])
    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

struct Boom: Error {}
