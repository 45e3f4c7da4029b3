public import EntitlementDomain
import EntitlementsProto
public import OutboundHTTP
import ProtobufWire
public import RPCCore

/// `entitlements.v1.EntitlementService`: what apps call with a public (or secret) key.
public struct EntitlementService: RPCService {
    public static let serviceName = "entitlements.v1.EntitlementService"

    let engine: CustomerEngine
    let tenants: TenantRegistry
    let log: CallLog
    let statusStreams: StatusStreams
    let appStore: AppStorePurchases
    /// Apple's App Store Server API, for purchases given by transaction ID.
    let appStoreAPIs: AppStoreServerAPIs
    /// nil: Google Play purchases are refused (no outbound client was configured).
    let playStore: PlayStorePurchases?
    let acknowledger: PlayAcknowledger?
    let redemptions: RedemptionAttempts
    /// Whose word about a caller's address is taken, for the redemption limits.
    let trustedProxies: TrustedProxies
    let offerSigners: OfferSigners
    /// The tenants' user tokens, checked on every call that names an app user.
    let userTokens: UserTokenGate

    public init(
        engine: CustomerEngine, tenants: TenantRegistry, log: CallLog, streams: StreamLimits = StreamLimits(),
        appStore: AppStorePurchases? = nil, appStoreAPIs: AppStoreServerAPIs? = nil, playStore: PlayStorePurchases? = nil,
        acknowledger: PlayAcknowledger? = nil, redemptions: RedemptionAttempts = RedemptionAttempts(),
        trustedProxies: TrustedProxies = TrustedProxies(), grpcWebHeartbeatInterval: Duration = .seconds(25),
        metrics: ServiceMetrics = ServiceMetrics(), http: OutboundHTTPClient? = nil
    ) {
        self.appStoreAPIs = appStoreAPIs ?? AppStoreServerAPIs(tenants: tenants, http: nil)
        self.engine = engine
        let userTokens = UserTokenGate(
            customers: engine.customers, tenants: tenants, http: http, metrics: metrics, now: { [engine] in engine.now() })
        self.userTokens = userTokens
        self.tenants = tenants
        self.log = log
        statusStreams = StatusStreams(
            engine: engine, tenants: tenants, log: log, userTokens: userTokens, limits: streams,
            grpcWebHeartbeatInterval: grpcWebHeartbeatInterval, metrics: metrics)
        self.appStore = appStore ?? AppStorePurchases(tenants: tenants)
        self.playStore = playStore
        self.acknowledger = acknowledger
        self.redemptions = redemptions
        self.trustedProxies = trustedProxies
        offerSigners = OfferSigners(tenants: tenants)
    }

    private static func method(_ name: String) -> MethodDescriptor {
        MethodDescriptor(service: serviceName, method: name)
    }

    public func register(on router: inout RPCRouter) {
        router.registerUnary(Self.method("Identify")) { (request: EntitlementsProto.IdentifyRequest, context) in
            try await identify(request, context)
        }
        // What the handler needs is captured once, here: a call through `self` copied the whole service (a struct of
        // many references, each retained and released) on every call.
        router.registerUnaryWithFastPath(Self.method("SyncStatus")) {
            [engine, log, tenants, userTokens] (request: SyncStatusRequest, context) in
            try Self.syncStatus(request, context, engine: engine, log: log, tenants: tenants, userTokens: userTokens)
        }
        router.registerUnary(Self.method("Purchase")) { (request: PurchaseRequest, context) in
            try await purchase(request, context)
        }
        router.registerUnary(Self.method("Restore")) { (request: RestoreRequest, context) in
            try await restore(request, context)
        }
        router.registerUnary(Self.method("SetAttributes")) { (request: SetAttributesRequest, context) in
            try await setAttributes(request, context)
        }
        router.registerUnary(Self.method("GetOfferEligibility")) { (request: GetOfferEligibilityRequest, context) in
            try await getOfferEligibility(request, context)
        }
        router.registerUnary(Self.method("SignOffer")) { (request: SignOfferRequest, context) in
            try await signOffer(request, context)
        }
        router.registerServerStreaming(Self.method("StreamStatus"), endsAtShutdown: true) {
            [statusStreams] (request: StreamStatusRequest, writer: ResponseWriter<EncodedMessage<StatusEvent>>, context) in
            try await statusStreams.serve(request, writer, context)
        }
    }

    private func identify(_ request: EntitlementsProto.IdentifyRequest, _ context: ServerContext) async throws -> IdentifyResponse {
        try await log.callAs(context, requires: .publicKey, scope: .write, in: tenants) { caller, fields in
            let tenant = caller.tenant
            // The identified user's token: a merge moves the anonymous customer into them.
            try await userTokens.check(caller, context, appUserID: request.appUserID, &fields)
            let anonymousID = request.anonymousID.isEmpty ? nil : request.anonymousID
            let outcome = try await engine.customers.identify(
                tenantID: tenant.id, appUserID: request.appUserID, anonymousID: anonymousID)
            fields.appUserID = outcome.state.appUserID
            var response = IdentifyResponse()
            let now = engine.now()
            response.customer = CustomerStatus(outcome.state, serverTime: now)
            try response.customer?.sign(outcome.state, askedAs: request.appUserID, tenant: tenant, at: now)
            response.created = outcome.created
            response.merged = outcome.merged
            response.appAccountToken = outcome.appAccountToken
            return response
        }
    }

    private func setAttributes(_ request: SetAttributesRequest, _ context: ServerContext) async throws
        -> SetAttributesResponse
    {
        try await log.callAs(context, requires: .publicKey, scope: .write, in: tenants) { caller, fields in
            let tenant = caller.tenant
            try await userTokens.check(caller, context, appUserID: request.appUserID, &fields)
            let outcome = try await engine.attributes.set(
                tenant: tenant, appUserID: request.appUserID, change: AttributeChange(request), by: .app)
            fields.appUserID = outcome.appUserID
            // Only what apps may write: the backend's own keys are not the app's to read.
            return SetAttributesResponse(outcome, shown: { tenant.attributes.allows($0, by: .app) })
        }
    }

    private func purchase(_ request: PurchaseRequest, _ context: ServerContext) async throws -> PurchaseResponse {
        try await log.callAs(context, requires: .publicKey, scope: .write, in: tenants) { caller, fields in
            let tenant = caller.tenant
            let appUserID = try AppUserID.validate(request.appUserID)
            try await userTokens.check(caller, context, appUserID: appUserID, &fields)
            let record: StorePurchase
            switch request.purchase {
            case .appStore(let purchase)?:
                record = try await appStoreRecord(purchase, tenant: tenant, field: "app_store")
            case .playStore(let purchase)?:
                record = try await playRecord(purchase, tenant: tenant, field: "play_store")
            case .webRedemption(let redemption)?:
                let caller = RedemptionAttempts.Caller(
                    tenantID: tenant.id, appUserID: appUserID,
                    address: trustedProxies.clientAddress(peer: context.peer, metadata: context.metadata))
                let redeemed = try await redeem(redemption.code, by: caller, tenant: tenant)
                fields.appUserID = redeemed.outcome.state.appUserID
                let now = engine.now()
                var response = PurchaseResponse(redeemed, serverTime: now)
                try response.customer?.sign(redeemed.outcome.state, askedAs: appUserID, tenant: tenant, at: now)
                return response
            case nil:
                throw DomainError.invalidRequest(
                    "purchase is required: set app_store.signed_transaction, play_store.purchase_token or web_redemption.code.")
            }
            let outcome = try await engine.purchases.applyStorePurchases(
                tenantID: tenant.id, appUserID: appUserID, purchases: [record], cause: .purchase,
                policies: tenant.transferPolicy(for:))
            if record.acknowledgement.state == .pending { acknowledger?.wake() }
            fields.appUserID = outcome.state.appUserID
            var response = PurchaseResponse()
            let now = engine.now()
            response.customer = CustomerStatus(outcome.state, serverTime: now)
            try response.customer?.sign(outcome.state, askedAs: appUserID, tenant: tenant, at: now)
            response.transferredFromAppUserID = outcome.transferredFrom.first ?? ""
            response.result = outcome.purchases.first.map { PurchaseResult(record, applied: $0) }
            return response
        }
    }

    private func restore(_ request: RestoreRequest, _ context: ServerContext) async throws -> RestoreResponse {
        try await log.callAs(context, requires: .publicKey, scope: .write, in: tenants) { caller, fields in
            let tenant = caller.tenant
            let appUserID = try AppUserID.validate(request.appUserID)
            try await userTokens.check(caller, context, appUserID: appUserID, &fields)
            let count = request.appStore.count + request.playStore.count
            guard count <= 100 else {
                throw DomainError.invalidRequest("Restore takes at most 100 purchases, got \(count).")
            }
            guard request.appStoreTransactionIDs.count <= 10 else {
                throw DomainError.invalidRequest(
                    "Restore reads at most 10 App Store histories, got \(request.appStoreTransactionIDs.count) app_store_transaction_ids.")
            }
            // Every transaction is verified before anything is written: one bad token fails the call, naming it.
            var records: [StorePurchase] = []
            for (index, purchase) in request.appStore.enumerated() {
                do throws(DomainError) {
                    records.append(try await appStoreRecord(purchase, tenant: tenant, field: "app_store[\(index)]"))
                } catch {
                    throw DomainError(error.code, "app_store[\(index)]: \(error.message)")
                }
            }
            for (index, purchase) in request.playStore.enumerated() {
                do throws(DomainError) {
                    records.append(try await playRecord(purchase, tenant: tenant, field: "play_store[\(index)]"))
                } catch {
                    throw DomainError(error.code, "play_store[\(index)]: \(error.message)")
                }
            }
            let histories = try await appStoreHistories(request, presented: records, tenant: tenant)
            // One record per purchase: what the history shows of a presented purchase is merged into it.
            var attached = records
            var positions: [String: Int] = [:]
            for (position, record) in records.enumerated() where record.store == .appStore {
                positions[record.originalTransactionID] = positions[record.originalTransactionID] ?? position
            }
            for purchase in histories.flatMap(\.purchases) {
                if let position = positions[purchase.originalTransactionID] {
                    attached[position] = PurchaseVersions.merge(stored: attached[position], incoming: purchase)
                } else {
                    positions[purchase.originalTransactionID] = attached.count
                    attached.append(purchase)
                }
            }
            let outcome = try await engine.purchases.applyStorePurchases(
                tenantID: tenant.id, appUserID: appUserID, purchases: attached, cause: .restore,
                policies: tenant.transferPolicy(for:))
            if records.contains(where: { $0.acknowledgement.state == .pending }) { acknowledger?.wake() }
            fields.appUserID = outcome.state.appUserID
            let results = zip(attached, outcome.purchases).map(PurchaseResult.init)
            var response = RestoreResponse()
            let now = engine.now()
            response.customer = CustomerStatus(outcome.state, serverTime: now)
            try response.customer?.sign(outcome.state, askedAs: appUserID, tenant: tenant, at: now)
            response.transferredFromAppUserIDs = outcome.transferredFrom
            response.results = Array(results.prefix(records.count))
            response.appStoreHistories = histories.map { history in
                AppStoreHistoryResult(
                    history, purchases: history.purchases.compactMap { positions[$0.originalTransactionID].map { results[$0] } })
            }
            return response
        }
    }

    /// The App Store histories a Restore reads: one per `app_store_transaction_ids` entry (an entry another one's
    /// history already holds is not read again), then, when the tenant asks for it, that of the first App Store
    /// purchase presented unless one read covers it.
    private func appStoreHistories(_ request: RestoreRequest, presented records: [StorePurchase], tenant: Tenant)
        async throws(DomainError) -> [AppStoreHistory]
    {
        var histories: [AppStoreHistory] = []
        func read(_ transactionID: String, field: String) async throws(DomainError) {
            if var covered = histories.first(where: { $0.transactionIDs.contains(transactionID) }) {
                covered.transactionID = transactionID
                histories.append(covered)
                return
            }
            do throws(DomainError) {
                histories.append(try await appStore.history(ofTransactionID: transactionID, tenant: tenant, apis: appStoreAPIs))
            } catch {
                throw DomainError(error.code, "\(field): \(error.message)")
            }
        }
        for (index, id) in request.appStoreTransactionIDs.enumerated() {
            let field = "app_store_transaction_ids[\(index)]"
            try AdminService.checkAppStoreTransactionID(id, field: field)
            try await read(id, field: field)
        }
        if tenant.appStore?.serverAPI?.restoreConsultsHistory == true,
            let first = records.first(where: { $0.store == .appStore }),
            !histories.contains(where: { $0.transactionIDs.contains(first.transactionID) })
        {
            try await read(first.transactionID, field: "the App Store history of app_store[0]")
        }
        return histories
    }

    /// Claims a web purchase with its code, unless this user ID or client address failed too often lately (then the
    /// code is not even looked up).
    private func redeem(_ code: String, by caller: RedemptionAttempts.Caller, tenant: Tenant) async throws(DomainError)
        -> Redemption
    {
        guard !code.isEmpty else { throw .invalidRequest("web_redemption.code is required.") }
        guard code.utf8.count <= 256 else { throw .invalidRequest("web_redemption.code is longer than 256 bytes.") }
        if let refusal = redemptions.refusal(for: caller, now: engine.now()) {
            throw .resourceExhausted(refusal.message)
        }
        do {
            return try await engine.purchases.redeem(
                tenantID: tenant.id, appUserID: caller.appUserID, code: code, policy: tenant.transferPolicy(for:))
        } catch where !error.code.mayPassLater {
            // Any refusal counts (an unknown, used or expired code, a transfer the policy forbids); our own failures
            // do not.
            redemptions.recordFailure(caller, now: engine.now())
            throw error
        }
    }

    /// A Play purchase checked with Google.
    private func playRecord(_ purchase: EntitlementsProto.PlayStorePurchase, tenant: Tenant, field: String)
        async throws(DomainError) -> StorePurchase
    {
        guard let playStore else {
            throw .serverMisconfigured("This server takes no Google Play purchases: its outbound HTTP client is not set up.")
        }
        return try await playStore.purchase(
            productID: purchase.productID, token: purchase.purchaseToken, tenant: tenant, field: field).purchase
    }

    /// An App Store purchase verified: its signed transaction, or the one Apple's server gives for its transaction ID.
    private func appStoreRecord(_ purchase: AppStorePurchase, tenant: Tenant, field: String) async throws(DomainError)
        -> StorePurchase
    {
        switch (purchase.signedTransaction.isEmpty, purchase.transactionID.isEmpty) {
        case (false, true):
            return try appStore.record(from: try Self.signedTransaction(purchase, field: field), tenant: tenant)
        case (true, false):
            try AdminService.checkAppStoreTransactionID(purchase.transactionID, field: field + ".transaction_id")
            return try await appStore.record(fromTransactionID: purchase.transactionID, tenant: tenant, apis: appStoreAPIs)
        case (false, false):
            throw .invalidRequest("\(field) takes signed_transaction or transaction_id, not both.")
        case (true, true):
            throw .invalidRequest("\(field) needs signed_transaction or transaction_id.")
        }
    }

    /// A signed transaction within reason: StoreKit's are a few kilobytes.
    private static func signedTransaction(_ purchase: AppStorePurchase, field: String) throws(DomainError) -> String {
        let token = purchase.signedTransaction
        guard token.utf8.count <= 64 * 1024 else {
            throw .invalidRequest("\(field).signed_transaction is larger than 64 KiB.")
        }
        return token
    }

    /// Runs on the connection's thread when the customer is cached: the answer comes from memory. A customer not
    /// cached is read off that thread (``Customers/memoizedState(tenantID:appUserID:)``), and the call is answered
    /// when the read is done.
    ///
    /// The customer's fields but `server_time` are encoded once per cache entry; each call appends `server_time`.
    /// Every field still appears once, so any protobuf parser reads the answer the same.
    private static func syncStatus(
        _ request: SyncStatusRequest, _ context: ServerContext, engine: CustomerEngine, log: CallLog,
        tenants: TenantRegistry, userTokens: UserTokenGate
    ) throws -> UnaryAnswer {
        try log.answer(context, requires: .publicKey, scope: .read, in: tenants) { caller, fields in
            let appUserID = try AppUserID.validate(request.appUserID)
            let tenantID = caller.tenant.id
            let signing = caller.tenant.signedStatus
            guard try userTokens.checkNow(caller, context, appUserID: appUserID, &fields) != nil else {
                return .later { fields in
                    try await userTokens.check(caller, context, appUserID: appUserID, &fields)
                    return try await Self.syncStatusAfterRead(tenantID, appUserID, signing, engine, &fields)
                }
            }
            if let cached = engine.customers.cachedState(tenantID: tenantID, appUserID: appUserID) {
                return .now(
                    try Self.syncStatusResponse(cached.state, cached.memo, appUserID, tenantID, signing, engine, &fields))
            }
            return .later { fields in try await Self.syncStatusAfterRead(tenantID, appUserID, signing, engine, &fields) }
        }
    }

    /// SyncStatus's answer for a customer the cache did not hold: read first (made only then: a closure made for
    /// every call would cost the cached path an allocation).
    private static func syncStatusAfterRead(
        _ tenantID: String, _ appUserID: String, _ signing: StatusSigningSettings?, _ engine: CustomerEngine,
        _ fields: inout CallLog.Fields
    ) async throws -> [UInt8] {
        let (state, memo) = try await engine.customers.memoizedState(tenantID: tenantID, appUserID: appUserID)
        guard state.customerID != nil else {
            throw engine.privacy.unknownCustomer(tenantID: tenantID, appUserID: appUserID, otherwise: .notIdentified(appUserID))
        }
        return try syncStatusResponse(state, memo, appUserID, tenantID, signing, engine, &fields)
    }

    /// A `SyncStatusResponse`'s bytes, its status signed when `signing` is set.
    private static func syncStatusResponse(
        _ state: CustomerState, _ memo: StateMemo?, _ appUserID: String, _ tenantID: String,
        _ signing: StatusSigningSettings?, _ engine: CustomerEngine, _ fields: inout CallLog.Fields
    ) throws(DomainError) -> [UInt8] {
        guard state.customerID != nil else { throw DomainError.notIdentified(appUserID) }
        fields.appUserID = state.appUserID
        func encodedState() -> [UInt8] { CustomerStatus(state).serializedBytes() }
        let customer = memo?.bytes(orMake: encodedState) ?? encodedState()
        let now = engine.now()
        guard let signing else {
            return SyncStatusResponse.encoding(customer: customer, serverTime: ProtoTimestamp(now))
        }
        let signed = try StatusSigning.token(
            state, memo: memo, askedAs: appUserID, tenantID: tenantID, settings: signing, at: now)
        return SyncStatusResponse.encoding(customer: customer, serverTime: ProtoTimestamp(now), signedStatus: signed)
    }
}
