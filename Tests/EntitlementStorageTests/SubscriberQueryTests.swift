import EntitlementDomain
import Testing

@testable import EntitlementStorage

/// `customer_entitlements` against hand-computed expectations: what is active at an instant, filters, paging,
/// husks and tenants.
@Suite("Subscriber queries")
struct SubscriberQueryTests {
    static let now = time(10_000)

    static func held(
        _ id: String, _ source: EntitlementSource, product: String = "", expiresAt: Int64? = nil,
        gracePeriod: Bool = false, billingRetry: Bool = false
    ) -> ActiveEntitlementValue {
        ActiveEntitlementValue(
            id: id, source: source, productID: product, expiresAt: expiresAt.map(time), willRenew: expiresAt != nil,
            inGracePeriod: gracePeriod, inBillingRetry: billingRetry, referenceID: "ref-\(id)")
    }

    /// Tenant `t`: alice (pro and cloud from one App Store product), bob (a lifetime pro grant), carol (pro from Play,
    /// expired at `now` although nothing recorded it), dave (cloud from the web, in grace period), erin (nothing),
    /// and an anonymous husk merged into erin. Tenant `u`: frank (pro). Created at 1000, 2000, ... in that order.
    struct Fixture {
        /// Kept so the file outlives the repository.
        let database: TemporaryDatabase
        let repository: SQLRepository
        let ids: [String: Int64]

        init() throws {
            database = try TemporaryDatabase()
            repository = try database.open()
            let holdings: [(tenant: String, user: String, held: [ActiveEntitlementValue])] = [
                ("t", "alice", [held("pro", .appStore, product: "monthly", expiresAt: 20_000), held("cloud", .appStore, product: "monthly", expiresAt: 20_000)]),
                ("t", "bob", [held("pro", .grant)]),
                ("t", "carol", [held("pro", .playStore, product: "yearly", expiresAt: 5_000)]),
                ("t", "dave", [held("cloud", .stripe, product: "cloud_web", expiresAt: 30_000, gracePeriod: true)]),
                ("t", "erin", []),
                ("t", "$anon:husk", []),
                ("u", "frank", [held("pro", .appStore, product: "monthly", expiresAt: 20_000)]),
            ]
            var ids: [String: Int64] = [:]
            try repository.write { transaction in
                for (index, holding) in holdings.enumerated() {
                    let customer = try transaction.customer(
                        holding.tenant, holding.user, anonymous: holding.user.hasPrefix("$anon:"),
                        at: 1_000 * Int64(index + 1))
                    ids[holding.user] = customer.id
                    try transaction.replaceActiveEntitlements(
                        tenantID: holding.tenant, customerID: customer.id, with: holding.held)
                }
                try transaction.merge(tenantID: "t", from: ids["$anon:husk"]!, into: ids["erin"]!)
            }
            self.ids = ids
        }

        func list(
            _ filter: CustomerFilter = CustomerFilter(), tenant: String = "t", after: Int64? = nil, limit: Int = 100
        ) throws -> [String] {
            try page(filter, tenant: tenant, after: after, limit: limit).map(\.appUserID)
        }

        func page(
            _ filter: CustomerFilter = CustomerFilter(), tenant: String = "t", after: Int64? = nil, limit: Int = 100
        ) throws -> [ListedCustomerRecord] {
            try repository.customers(
                tenantID: tenant,
                matching: CustomerListQuery(filter: filter, afterCustomerID: after, limit: limit, now: SubscriberQueryTests.now))
        }
    }

    @Test func countsDistinctActiveCustomersPerGroup() throws {
        let fixture = try Fixture()
        #expect(
            try fixture.repository.subscriberCounts(tenantID: "t", at: Self.now)
                == SubscriberCounts(
                    activeCustomers: 3, perEntitlement: ["pro": 2, "cloud": 2], perProduct: ["monthly": 1, "cloud_web": 1],
                    perSource: [.appStore: 1, .grant: 1, .stripe: 1]))
        #expect(
            try fixture.repository.subscriberCounts(tenantID: "u", at: Self.now)
                == SubscriberCounts(
                    activeCustomers: 1, perEntitlement: ["pro": 1], perProduct: ["monthly": 1], perSource: [.appStore: 1]))
        // Before carol's expiry she counts; after everything's, only bob's lifetime grant does.
        #expect(try fixture.repository.subscriberCounts(tenantID: "t", at: time(4_999)).perSource[.playStore] == 1)
        #expect(
            try fixture.repository.subscriberCounts(tenantID: "t", at: time(30_000))
                == SubscriberCounts(activeCustomers: 1, perEntitlement: ["pro": 1], perProduct: [:], perSource: [.grant: 1]))
        #expect(try fixture.repository.subscriberCounts(tenantID: "nobody", at: Self.now).activeCustomers == 0)
    }

    @Test func listsByEveryFilterInCreationOrder() throws {
        let fixture = try Fixture()
        #expect(try fixture.list() == ["alice", "bob", "carol", "dave", "erin"])
        #expect(try fixture.list(CustomerFilter(state: .active)) == ["alice", "bob", "dave"])
        #expect(try fixture.list(CustomerFilter(state: .inactive)) == ["carol", "erin"])
        #expect(try fixture.list(CustomerFilter(state: .gracePeriod)) == ["dave"])
        #expect(try fixture.list(CustomerFilter(state: .billingRetry)) == [])
        #expect(try fixture.list(CustomerFilter(entitlementID: "pro")) == ["alice", "bob"])
        #expect(try fixture.list(CustomerFilter(entitlementID: "cloud")) == ["alice", "dave"])
        #expect(try fixture.list(CustomerFilter(source: .stripe)) == ["dave"])
        #expect(try fixture.list(CustomerFilter(source: .playStore)) == [])
        #expect(try fixture.list(CustomerFilter(productID: "monthly")) == ["alice"])
        // The conditions name one entitlement: bob's pro is a grant, alice's is from the App Store.
        #expect(try fixture.list(CustomerFilter(entitlementID: "pro", source: .grant)) == ["bob"])
        #expect(try fixture.list(CustomerFilter(entitlementID: "cloud", state: .gracePeriod)) == ["dave"])
        #expect(try fixture.list(CustomerFilter(entitlementID: "pro", productID: "cloud_web")) == [])
        #expect(try fixture.list(CustomerFilter(changedSince: time(3_000))) == ["carol", "dave", "erin"])
        #expect(try fixture.list(CustomerFilter(state: .active, changedSince: time(2_000))) == ["bob", "dave"])
    }

    @Test func listedCustomersCarryWhatTheyHoldNow() throws {
        let fixture = try Fixture()
        let page = try fixture.page()
        let alice = try #require(page.first)
        #expect(alice.entitlements.map(\.id) == ["cloud", "pro"])
        #expect(alice.entitlements.allSatisfy { $0.productID == "monthly" && $0.source == .appStore })
        #expect(alice.createdAt == time(1_000) && alice.changedAt == time(1_000))
        #expect(page[2].appUserID == "carol" && page[2].entitlements.isEmpty)
        #expect(page[3].entitlements == [Self.held("cloud", .stripe, product: "cloud_web", expiresAt: 30_000, gracePeriod: true)])
    }

    @Test func pagesFollowCustomerIDsWhileCustomersChange() throws {
        let fixture = try Fixture()
        let first = try fixture.page(limit: 2)
        #expect(first.map(\.appUserID) == ["alice", "bob"])
        // Between pages: alice loses everything, a new customer arrives, carol gets a grant.
        try fixture.repository.write { transaction in
            try transaction.replaceActiveEntitlements(tenantID: "t", customerID: fixture.ids["alice"]!, with: [])
            try transaction.replaceActiveEntitlements(
                tenantID: "t", customerID: fixture.ids["carol"]!, with: [Self.held("pro", .grant)])
            try transaction.customer("t", "zoe", at: 9_000)
        }
        let second = try fixture.page(after: first.last!.customerID, limit: 2)
        #expect(second.map(\.appUserID) == ["carol", "dave"])
        #expect(second[0].entitlements.map(\.source) == [.grant])
        #expect(try fixture.list(after: second.last!.customerID, limit: 2) == ["erin", "zoe"])
        #expect(try fixture.list(CustomerFilter(entitlementID: "pro"), after: fixture.ids["alice"]!) == ["bob", "carol"])
    }

    @Test func tenantsSeeOnlyTheirOwnCustomers() throws {
        let fixture = try Fixture()
        #expect(try fixture.list(tenant: "u") == ["frank"])
        #expect(try fixture.list(CustomerFilter(entitlementID: "pro"), tenant: "u") == ["frank"])
        // Positions from tenant t's IDs reveal nothing of u beyond its own rows.
        #expect(try fixture.list(tenant: "u", after: fixture.ids["alice"]!) == ["frank"])
        #expect(try fixture.list(tenant: "u", after: fixture.ids["frank"]!) == [])
        #expect(try fixture.list(tenant: "nobody") == [])
    }

    @Test func eventsStampChangedAt() throws {
        let fixture = try Fixture()
        let alice = fixture.ids["alice"]!
        try fixture.repository.write { transaction in
            var event = makeEvent(tenant: "t", customer: alice, version: 1)
            event.occurredAt = time(9_500)
            try transaction.appendEvent(event, nextChangeAt: nil)
        }
        #expect(try fixture.list(CustomerFilter(changedSince: time(9_000))) == ["alice"])
        #expect(try fixture.page().first?.changedAt == time(9_500))
    }
}
