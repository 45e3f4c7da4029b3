import EntitlementDomain
import EntitlementsProto
import ProtobufWire
import RPCCore

/// `ListCustomers`, `CountCustomers` and `FindCustomers`: the tenant's customers as a whole, and what one ID names,
/// read from the database's indexes; `DescribeKey`, what the calling key is.
extension AdminService {
    func describeKey(_ request: DescribeKeyRequest, _ context: ServerContext) async throws -> KeyDescription {
        try await log.callAs(context, requires: .secretKey, scope: .read, in: tenants) { caller, _ in
            var description = KeyDescription()
            description.tenantID = caller.tenant.id
            description.keyName = caller.key.name
            description.scope = caller.key.scope == .write ? .write : .read
            description.entitlements = caller.tenant.declaredEntitlements.sorted()
            description.allowsUndeclaredEntitlements = caller.tenant.allowUndeclaredEntitlements
            description.webhookEndpoints = caller.tenant.webhooks.map(\.id)
            return description
        }
    }

    func findCustomers(_ request: FindCustomersRequest, _ context: ServerContext) async throws -> FindCustomersResponse {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            let matches = try engine.subscriberQueries.findCustomers(tenantID: tenant.id, query: request.query)
            return FindCustomersResponse(matches: matches.map(EntitlementsProto.CustomerMatch.init))
        }
    }

    func listCustomers(_ request: ListCustomersRequest, _ context: ServerContext) async throws -> ListCustomersResponse {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            let page = try engine.subscriberQueries.listCustomers(
                tenant: tenant, filter: try CustomerFilter(request), pageSize: Int(request.pageSize),
                pageToken: request.pageToken)
            let now = engine.now()
            var response = ListCustomersResponse()
            response.customers = page.customers.map { record in
                let state = CustomerState(
                    customerID: record.customerID, appUserID: record.appUserID, version: record.version,
                    status: ComputedStatus(entitlements: record.entitlements, nextChangeAt: nil))
                return ListedCustomer(
                    customer: CustomerStatus(state, serverTime: now), createdAt: ProtoTimestamp(record.createdAt),
                    changedAt: ProtoTimestamp(record.changedAt))
            }
            response.nextPageToken = page.nextPageToken
            return response
        }
    }

    func countCustomers(_ request: CountCustomersRequest, _ context: ServerContext) async throws -> CountCustomersResponse {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, _ in
            let taken = try engine.subscriberQueries.countCustomers(tenantID: tenant.id)
            let counts = taken.counts
            var response = CountCustomersResponse()
            response.activeCustomers = counts.activeCustomers
            response.entitlements = counts.perEntitlement.sorted { $0.key < $1.key }.map {
                CustomerCount(id: $0.key, customers: $0.value)
            }
            response.products = counts.perProduct.sorted { $0.key < $1.key }.map {
                CustomerCount(id: $0.key, customers: $0.value)
            }
            response.stores = EntitlementSource.allCases.compactMap { source in
                counts.perSource[source].map { StoreCount(store: EntitlementsProto.Store(source), customers: $0) }
            }
            response.countedAt = ProtoTimestamp(taken.countedAt)
            return response
        }
    }
}

extension CustomerFilter {
    /// The request's filters in domain terms: unset fields filter nothing; enum values and the timestamp are checked
    /// here, the rest by the engine against the tenant.
    init(_ request: ListCustomersRequest) throws(DomainError) {
        var source: EntitlementSource?
        if request.store != .unspecified {
            guard let known = EntitlementSource.allCases.first(where: { EntitlementsProto.Store($0) == request.store })
            else {
                throw .invalidRequest(
                    "store \(request.store.rawValue) is not a Store: use APP_STORE, PLAY_STORE, WEB or GRANT (or leave it unset).")
            }
            source = known
        }
        let states: [(ListCustomersRequest.State, State)] = [
            (.unspecified, .any), (.active, .active), (.inactive, .inactive), (.gracePeriod, .gracePeriod),
            (.billingRetry, .billingRetry),
        ]
        guard let state = states.first(where: { $0.0 == request.state })?.1 else {
            throw .invalidRequest(
                "state \(request.state.rawValue) is not a ListCustomersRequest.State: use ACTIVE, INACTIVE, GRACE_PERIOD or BILLING_RETRY (or leave it unset).")
        }
        let changedSince = try request.changedSince.map { (timestamp) throws(DomainError) in
            try timestamp.requestTime(field: "changed_since")
        }
        self.init(
            entitlementID: request.entitlementID.isEmpty ? nil : request.entitlementID, source: source,
            productID: request.productID.isEmpty ? nil : request.productID, state: state, changedSince: changedSince)
    }
}

extension EntitlementsProto.CustomerMatch {
    init(_ match: EntitlementDomain.CustomerMatch) {
        self.init(
            appUserID: match.appUserID, matchedBy: MatchedBy(match.matchedBy),
            store: match.store.map(EntitlementsProto.Store.init) ?? .unspecified,
            originalTransactionID: match.originalTransactionID)
    }
}

extension EntitlementsProto.CustomerMatch.MatchedBy {
    init(_ matchedBy: EntitlementDomain.CustomerMatch.MatchedBy) {
        self =
            switch matchedBy {
            case .appUserID: .appUserID
            case .alias: .alias
            case .email: .email
            case .originalTransactionID: .originalTransactionID
            case .transactionID: .transactionID
            case .storeReference: .storeReference
            }
    }
}
