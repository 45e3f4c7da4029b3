import CivilCalendar
import EntitlementDomain
import EntitlementStorage
import Foundation

/// `ListCustomers` and `CountCustomers` over a million customers: seeds them through the storage layer in big
/// transactions (what the engine would have written: customer, app user ID, event with its status, the entitlement
/// rows), then times the engine's queries, which are what the RPCs run besides mapping.
///
/// Customer `n` of tenant `bench` holds: for even `n`, `pro` from the App Store, Play or the web in turn (product
/// `pro.monthly.<store>`, renewing, 30 days left; every 50th of them in grace period); for `n` divisible by 5, a
/// lifetime `premium` grant; for odd `n` divisible by 7 (and not by 5), `pro` from the App Store that expired a day ago
/// without the expiry recorded yet. Tenant `other` has 10,000 customers like them, to show the queries stay in their
/// tenant.
enum SubscriberQueriesBench {
    static let tenantID = "bench"
    static let batch = 50_000

    static func run(databasePath: String, customers: Int, runs: Int) async throws {
        let clock = ContinuousClock()
        let now = UnixTime(milliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let repository = try SQLiteRepository(path: databasePath, synchronous: .normal)
        let seeding = clock.now
        try seed(repository, tenantID: "other", customers: 10_000, now: now)
        try seed(repository, tenantID: tenantID, customers: customers, now: now)
        print("seeded \(customers) + 10000 customers in \(AppStoreBench.format(AppStoreBench.seconds(seeding.duration(to: clock.now)))) s")

        let engine = CustomerEngine(repository: repository)
        let tenant = try Tenant(
            id: tenantID, publicKeyHashes: [], secretKeyHashes: [APIKey.hashString(APIKey.generate(.secretKey))!],
            entitlements: ["pro", "premium"], allowUndeclaredEntitlements: false, products: [:])
        let counts = try engine.subscriberQueries.countCustomers(tenantID: tenantID).counts
        print(
            "counts: \(counts.activeCustomers) active; per entitlement \(counts.perEntitlement.sorted { $0.key < $1.key });"
                + " per product \(counts.perProduct.sorted { $0.key < $1.key }); per store \(counts.perSource.count) stores")
        report("CountCustomers", runs: runs) { _ = try engine.subscriberQueries.countCustomers(tenantID: tenantID) }

        let newest = createdAt(customers - 1000, now: now)
        let pages: [(String, CustomerFilter)] = [
            ("ListCustomers page of 100, no filter", CustomerFilter()),
            ("ListCustomers page of 100, entitlement premium", CustomerFilter(entitlementID: "premium")),
            ("ListCustomers page of 100, store PLAY_STORE", CustomerFilter(source: .playStore)),
            ("ListCustomers page of 100, state ACTIVE", CustomerFilter(state: .active)),
            ("ListCustomers page of 100, state INACTIVE", CustomerFilter(state: .inactive)),
            ("ListCustomers page of 100, state GRACE_PERIOD", CustomerFilter(state: .gracePeriod)),
            ("ListCustomers page of 100, changed_since matching the newest 1,000", CustomerFilter(changedSince: newest)),
        ]
        for (name, filter) in pages {
            // The first page, then pages further on through their tokens: keyset pages cost the same anywhere.
            var token = ""
            report(name, runs: runs) {
                let page = try engine.subscriberQueries.listCustomers(
                    tenant: tenant, filter: filter, pageSize: 100, pageToken: token)
                guard !page.customers.isEmpty else { fail("\(name): an empty page") }
                token = page.nextPageToken
            }
        }
    }

    /// How long opening an existing database takes: on one from before migration 9, its backfill of every customer.
    static func open(databasePath: String) throws {
        let clock = ContinuousClock()
        let start = clock.now
        _ = try SQLiteRepository(path: databasePath, synchronous: .normal)
        print("opened \(databasePath) in \(AppStoreBench.format(AppStoreBench.seconds(start.duration(to: clock.now)))) s")
    }

    /// Times `body` `runs` times after one untimed call; prints the median and the extremes in milliseconds.
    static func report(_ name: String, runs: Int, _ body: () throws -> Void) {
        let clock = ContinuousClock()
        do {
            try body()
            var times: [Double] = []
            for _ in 0..<runs {
                let start = clock.now
                try body()
                times.append(AppStoreBench.seconds(start.duration(to: clock.now)) * 1000)
            }
            times.sort()
            print(
                "\(name): median \(AppStoreBench.format(times[times.count / 2])) ms"
                    + " (min \(AppStoreBench.format(times.first!)), max \(AppStoreBench.format(times.last!)), \(runs) runs)")
        } catch {
            fail("\(name): \(error)")
        }
    }

    /// Customer `n` was created 30 days ago plus `n` milliseconds, and has not changed since.
    static func createdAt(_ n: Int, now: UnixTime) -> UnixTime {
        UnixTime(milliseconds: now.milliseconds - 30 * Milliseconds.perDay + Int64(n))
    }

    static func seed(_ repository: SQLiteRepository, tenantID: String, customers: Int, now: UnixTime) throws {
        let stores: [EntitlementSource] = [.appStore, .playStore, .stripe]
        for start in stride(from: 0, to: customers, by: batch) {
            try repository.write { transaction in
                for n in start..<min(start + batch, customers) {
                    let created = createdAt(n, now: now)
                    let customer = try transaction.createCustomer(
                        tenantID: tenantID, appUserID: "bench-subscriber-\(n)", isAnonymous: false, at: created)
                    var held: [ActiveEntitlementValue] = []
                    if n % 2 == 0 {
                        let source = stores[(n / 2) % 3]
                        held.append(
                            ActiveEntitlementValue(
                                id: "pro", source: source, productID: "pro.monthly.\(source)",
                                expiresAt: UnixTime(milliseconds: now.milliseconds + 30 * Milliseconds.perDay), willRenew: true,
                                inGracePeriod: n % 100 == 0, inBillingRetry: false, referenceID: "tx-\(n)"))
                    } else if n % 7 == 0 && n % 5 != 0 {
                        held.append(
                            ActiveEntitlementValue(
                                id: "pro", source: .appStore, productID: "pro.monthly.appStore",
                                expiresAt: UnixTime(milliseconds: now.milliseconds - Milliseconds.perDay), willRenew: false,
                                inGracePeriod: false, inBillingRetry: false, referenceID: "tx-\(n)"))
                    }
                    if n % 5 == 0 {
                        held.append(
                            ActiveEntitlementValue(
                                id: "premium", source: .grant, productID: "", expiresAt: nil, willRenew: false,
                                inGracePeriod: false, inBillingRetry: false, referenceID: "gr-\(n)"))
                    }
                    let status = ComputedStatus(entitlements: held, nextChangeAt: nil)
                    try transaction.appendEvent(
                        EventRecord(
                            tenantID: tenantID, customerID: customer.id, version: 1, cause: .created,
                            change: .statusChanged, reason: "Seeded.", occurredAt: created, status: status.storedBytes,
                            relatedAppUserID: "", referenceID: ""),
                        nextChangeAt: nil)
                    try transaction.replaceActiveEntitlements(
                        tenantID: tenantID, customerID: customer.id, with: status.entitlements)
                }
            }
        }
    }
}
