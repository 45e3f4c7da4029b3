import EntitlementsProto
import ProtobufWire

/// ListCustomers, CountCustomers, FindCustomers and DescribeKey messages, built exactly as `Resources/roundtrip.py`
/// builds them.
extension Fixtures {
    static let subscriberQueries: [Fixture] = [
        Fixture("ListCustomersRequest") { listCustomersRequest($0) },
        Fixture("ListCustomersRequest#unknownEnums") { listCustomersRequest($0, unknownEnums: true) },
        Fixture("ListCustomersResponse") { u in
            unk(ListCustomersResponse(customers: (0..<2).map { listedCustomer(u, $0) }, nextPageToken: "page-2"), u)
        },
        Fixture("ListedCustomer") { listedCustomer($0, 0) },
        Fixture("CountCustomersRequest") { unk(CountCustomersRequest(), $0) },
        Fixture("CountCustomersResponse") { u in
            unk(
                CountCustomersResponse(
                    activeCustomers: 3_000_000_000,
                    entitlements: [unk(CustomerCount(id: "plus", customers: 1), u), unk(CustomerCount(id: "pro", customers: 2), u)],
                    products: [unk(CustomerCount(id: "monthly", customers: 2), u)],
                    stores: [unk(StoreCount(store: .appStore, customers: 2), u), unk(StoreCount(store: .init(rawValue: 99), customers: 1), u)],
                    countedAt: ts(1_700_000_000, 0, u)),
                u)
        },
        Fixture("CustomerCount") { unk(CustomerCount(id: "pro", customers: 2), $0) },
        Fixture("StoreCount") { unk(StoreCount(store: .grant, customers: 4), $0) },
        Fixture("FindCustomersRequest") { unk(FindCustomersRequest(query: "GPA.1234-5678"), $0) },
        Fixture("FindCustomersResponse") { u in unk(FindCustomersResponse(matches: (0..<2).map { customerMatch(u, $0) }), u) },
        Fixture("CustomerMatch") { customerMatch($0, 0) },
        Fixture("CustomerMatch#unknownEnums") { customerMatch($0, 1) },
        Fixture("DescribeKeyRequest") { unk(DescribeKeyRequest(), $0) },
        Fixture("KeyDescription") { u in
            var description = KeyDescription()
            description.tenantID = "demo"
            description.keyName = "support-ana"
            description.scope = .read
            description.entitlements = ["premium", "pro"]
            description.allowsUndeclaredEntitlements = true
            description.webhookEndpoints = ["backend", "crm"]
            return unk(description, u)
        },
        .empty(ListCustomersRequest.self), .empty(ListCustomersResponse.self), .empty(ListedCustomer.self),
        .empty(CountCustomersRequest.self), .empty(CountCustomersResponse.self), .empty(CustomerCount.self),
        .empty(StoreCount.self), .empty(FindCustomersRequest.self), .empty(FindCustomersResponse.self),
        Fixture("DescribeTrustRequest") { unk(DescribeTrustRequest(), $0) },
        Fixture("TrustDescription") { u in
            var description = TrustDescription()
            description.userTokens = userTokenDescription(u)
            description.signedStatus = statusSigningDescription(u)
            return unk(description, u)
        },
        Fixture("UserTokenDescription") { userTokenDescription($0) },
        Fixture("UserTokenDescription#unknownEnums") { userTokenDescription($0, mode: .init(rawValue: 99)) },
        Fixture("UserTokenCount") { unk(UserTokenCount(outcome: "would_refuse", reason: "subject", count: 7), $0) },
        Fixture("StatusSigningDescription") { statusSigningDescription($0) },
        .empty(CustomerMatch.self), .empty(KeyDescription.self), .empty(TrustDescription.self),
        .empty(UserTokenDescription.self), .empty(UserTokenCount.self), .empty(StatusSigningDescription.self),
        // Typealiases of ProtoEmpty, so named by hand.
        Fixture("DescribeKeyRequest#empty") { unk(DescribeKeyRequest(), $0) },
        Fixture("DescribeTrustRequest#empty") { unk(DescribeTrustRequest(), $0) },
    ]

    static func userTokenDescription(_ u: Bool, mode: UserTokenDescription.Mode = .required) -> UserTokenDescription {
        var description = UserTokenDescription()
        description.mode = mode
        description.issuer = "https://auth.example.com"
        description.maxLifetimeSeconds = 3600
        description.hs256Secrets = 2
        description.keysFrom = "https://auth.example.com/jwks"
        description.allowsAnonymous = true
        description.counts = [
            unk(UserTokenCount(outcome: "accepted", reason: "", count: 1 << 40), u),
            unk(UserTokenCount(outcome: "refused", reason: "expired", count: 3), u),
        ]
        description.countedSince = ts(1_700_000_000, 0, u)
        return unk(description, u)
    }

    static func statusSigningDescription(_ u: Bool) -> StatusSigningDescription {
        var description = StatusSigningDescription()
        description.signingKeyID = "2027-06"
        description.keyIDs = ["2027-06", "2026-12"]
        description.offlineValidityHours = 72
        return unk(description, u)
    }

    static func customerMatch(_ u: Bool, _ i: Int) -> CustomerMatch {
        let known = i == 0
        return unk(
            CustomerMatch(
                appUserID: known ? "alice" : "", matchedBy: known ? .transactionID : .init(rawValue: 99),
                store: known ? .playStore : .init(rawValue: 99), originalTransactionID: "token-\(i)"),
            u)
    }

    static func listCustomersRequest(_ u: Bool, unknownEnums: Bool = false) -> ListCustomersRequest {
        unk(
            ListCustomersRequest(
                pageSize: 50, pageToken: "page-2", entitlementID: "pro",
                store: unknownEnums ? .init(rawValue: 99) : .playStore, productID: "monthly",
                state: unknownEnums ? .init(rawValue: 99) : .gracePeriod, changedSince: ts(1_700_000_000, 0, u)),
            u)
    }

    static func listedCustomer(_ u: Bool, _ i: Int64) -> ListedCustomer {
        unk(
            ListedCustomer(
                customer: customerStatus(u), createdAt: ts(1_600_000_000 + i, 0, u), changedAt: ts(1_700_000_000 + i, 0, u)),
            u)
    }
}
