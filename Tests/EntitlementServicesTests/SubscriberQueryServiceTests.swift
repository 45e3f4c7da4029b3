import CivilCalendar
import EntitlementClient
import EntitlementDomain
import EntitlementServices
import EntitlementsProto
import ProtobufWire
import RPCCore
import Testing
import TestSupport

extension Calls {
    static let listCustomersMethod = MethodDescriptor(service: AdminService.serviceName, method: "ListCustomers")
    static let countCustomersMethod = MethodDescriptor(service: AdminService.serviceName, method: "CountCustomers")

    func listCustomers(_ request: ListCustomersRequest = ListCustomersRequest()) async throws -> ListCustomersResponse {
        try await client.unary(Self.listCustomersMethod, request, as: ListCustomersResponse.self)
    }

    func countCustomers() async throws -> CountCustomersResponse {
        try await client.unary(Self.countCustomersMethod, CountCustomersRequest(), as: CountCustomersResponse.self)
    }

    /// Every page of a listing, following tokens; the app user IDs in order.
    func listAll(_ request: ListCustomersRequest) async throws -> [String] {
        var request = request
        var listed: [String] = []
        repeat {
            let page = try await listCustomers(request)
            listed += page.customers.map { $0.customer?.appUserID ?? "" }
            request.pageToken = page.nextPageToken
        } while !request.pageToken.isEmpty
        return listed
    }
}

/// ListCustomers and CountCustomers through the real server, with statuses made by grants and Identify.
@Suite struct SubscriberQueryServiceTests {
    @Test func countsAndListsWhatGrantsAndMergesMade() async throws {
        try await withHarness { harness in
            let admin = try harness.calls(key: harness.a.secretKey)
            for user in ["alice", "bob", "carol"] { try await admin.identify(user) }
            try await admin.grant("alice", "pro")
            try await admin.grant("alice", "plus", duration: .seconds(Seconds.perHour))
            try await admin.grant("bob", "pro")
            // An anonymous customer with history merged into carol leaves a husk that is never listed.
            try await admin.identify("$anon:phone")
            try await admin.grant("$anon:phone", "plus")
            try await admin.identify("carol", anonymousID: "$anon:phone")

            let counts = try await admin.countCustomers()
            #expect(counts.activeCustomers == 3)
            #expect(counts.entitlements.map { "\($0.id)=\($0.customers)" } == ["plus=2", "pro=2"])
            #expect(counts.products.isEmpty)
            #expect(counts.stores.map { "\($0.store.rawValue)=\($0.customers)" } == ["4=3"])
            #expect(counts.countedAt != nil)

            let all = try await admin.listCustomers()
            #expect(all.customers.map { $0.customer?.appUserID ?? "" } == ["alice", "bob", "carol"])
            #expect(all.nextPageToken.isEmpty)
            let alice = try #require(all.customers.first)
            #expect(alice.customer?.status?.entitlements.map(\.id) == ["plus", "pro"])
            #expect(alice.customer?.status?.state == .active)
            #expect(alice.createdAt != nil && alice.changedAt != nil)
            #expect(try await admin.listAll(ListCustomersRequest(entitlementID: "plus")) == ["alice", "carol"])
            #expect(try await admin.listAll(ListCustomersRequest(store: .grant, state: .active)) == ["alice", "bob", "carol"])
            #expect(try await admin.listAll(ListCustomersRequest(store: .appStore)) == [])
            #expect(try await admin.listAll(ListCustomersRequest(state: .inactive)) == [])
            #expect(try await admin.listAll(ListCustomersRequest(pageSize: 1)) == ["alice", "bob", "carol"])
        }
    }

    @Test func pageTokensStayValidWhileCustomersChange() async throws {
        try await withHarness { harness in
            let admin = try harness.calls(key: harness.a.secretKey)
            for user in ["u1", "u2", "u3", "u4", "u5"] { try await admin.grant(user, "pro") }
            let first = try await admin.listCustomers(ListCustomersRequest(pageSize: 2, entitlementID: "pro"))
            #expect(first.customers.map { $0.customer?.appUserID ?? "" } == ["u1", "u2"])
            // u3 loses pro, u1 (already listed) loses it too, a new u6 gets it.
            let u3 = try await admin.customer("u3").grants[0].grantID
            let u1 = try await admin.customer("u1").grants[0].grantID
            _ = try await admin.revoke(u3)
            _ = try await admin.revoke(u1)
            try await admin.grant("u6", "pro")
            var rest: [String] = []
            var token = first.nextPageToken
            while !token.isEmpty {
                let page = try await admin.listCustomers(ListCustomersRequest(pageSize: 2, pageToken: token, entitlementID: "pro"))
                rest += page.customers.map { $0.customer?.appUserID ?? "" }
                token = page.nextPageToken
            }
            #expect(rest == ["u4", "u5", "u6"])
        }
    }

    @Test func tenantsAreIsolatedAndTokensAreBound() async throws {
        try await withHarness { harness in
            let a = try harness.calls(key: harness.a.secretKey)
            let b = try harness.calls(key: harness.b.secretKey)
            for user in ["a1", "a2", "a3"] { try await a.grant(user, "pro") }
            try await b.grant("b1", "plus")
            #expect(try await b.listAll(ListCustomersRequest()) == ["b1"])
            let countsB = try await b.countCustomers()
            #expect(countsB.activeCustomers == 1 && countsB.entitlements.map(\.id) == ["plus"])
            let page = try await a.listCustomers(ListCustomersRequest(pageSize: 1))
            #expect(!page.nextPageToken.isEmpty)
            // Tenant A's token means nothing to tenant B, nor with other filters.
            #expect(await rpcErrorCode { try await b.listCustomers(ListCustomersRequest(pageToken: page.nextPageToken)) } == .invalidArgument)
            #expect(
                await rpcErrorCode {
                    try await a.listCustomers(ListCustomersRequest(pageToken: page.nextPageToken, state: .active))
                } == .invalidArgument)
            let app = try harness.calls(key: harness.a.publicKey)
            #expect(await rpcErrorCode { try await app.listCustomers() } == .permissionDenied)
            #expect(await rpcErrorCode { try await app.countCustomers() } == .permissionDenied)
        }
    }

    @Test func refusesMalformedRequests() async throws {
        try await withHarness { harness in
            let admin = try harness.calls(key: harness.a.secretKey)
            let bad: [(String, ListCustomersRequest)] = [
                ("page_size", ListCustomersRequest(pageSize: -1)),
                ("page_size", ListCustomersRequest(pageSize: 1001)),
                ("page_token", ListCustomersRequest(pageToken: "garbage!")),
                ("page_token", ListCustomersRequest(pageToken: String(repeating: "A", count: 10_000))),
                ("entitlement_id", ListCustomersRequest(entitlementID: "undeclared")),
                ("entitlement_id", ListCustomersRequest(entitlementID: "has space")),
                ("store", ListCustomersRequest(store: EntitlementsProto.Store(rawValue: 9))),
                ("state", ListCustomersRequest(state: ListCustomersRequest.State(rawValue: 7))),
                ("product_id", ListCustomersRequest(productID: String(repeating: "p", count: 300))),
                ("product_id", ListCustomersRequest(productID: " lead")),
                ("INACTIVE", ListCustomersRequest(entitlementID: "pro", state: .inactive)),
                ("changed_since", ListCustomersRequest(changedSince: ProtoTimestamp(seconds: 300_000_000_000))),
            ]
            for (field, request) in bad {
                do {
                    _ = try await admin.listCustomers(request)
                    Issue.record("\(field): expected INVALID_ARGUMENT")
                } catch let error as RPCError {
                    #expect(error.code == .invalidArgument, "\(field)")
                    #expect(error.message.contains(field), "\(field): \(error.message)")
                    #expect(error.message.utf8.count < 600, "\(field)")
                }
            }
        }
    }
}
