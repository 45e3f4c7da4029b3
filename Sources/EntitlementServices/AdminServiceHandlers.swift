import CivilCalendar
public import EntitlementDomain
import EntitlementsProto
import ProtobufWire
public import RPCCore

/// `entitlements.v1.AdminService`: what operators' tools call with a secret key.
public struct AdminService: RPCService {
    public static let serviceName = "entitlements.v1.AdminService"

    let engine: CustomerEngine
    let tenants: TenantRegistry
    let log: CallLog
    let playStore: PlayStorePurchases?
    let acknowledger: PlayAcknowledger?
    /// nil: no outbound HTTP client, so no webhook can be sent.
    let webhooks: WebhookDeliverer?
    /// nil: no outbound HTTP client, so Apple's history cannot be read, nor Apple asked.
    let appStoreReconciler: AppStoreReconciler?
    let appStoreSupport: AppStoreSupport?
    /// The user tokens counted, for `DescribeTrust`.
    let metrics: ServiceMetrics
    /// When this instance's counts began.
    let countingSince: UnixTime

    public init(
        engine: CustomerEngine, tenants: TenantRegistry, log: CallLog, playStore: PlayStorePurchases? = nil,
        acknowledger: PlayAcknowledger? = nil, webhooks: WebhookDeliverer? = nil,
        appStoreReconciler: AppStoreReconciler? = nil, appStoreSupport: AppStoreSupport? = nil,
        metrics: ServiceMetrics = ServiceMetrics()
    ) {
        self.engine = engine
        self.metrics = metrics
        countingSince = engine.now()
        self.tenants = tenants
        self.log = log
        self.playStore = playStore
        self.acknowledger = acknowledger
        self.webhooks = webhooks
        self.appStoreReconciler = appStoreReconciler
        self.appStoreSupport = appStoreSupport
    }

    static func method(_ name: String) -> MethodDescriptor {
        MethodDescriptor(service: serviceName, method: name)
    }

    public func register(on router: inout RPCRouter) {
        router.registerUnary(Self.method("GrantEntitlement")) { (request: GrantEntitlementRequest, context) in
            try await grant(request, context)
        }
        router.registerUnary(Self.method("SetCustomerAttributes")) { (request: SetCustomerAttributesRequest, context) in
            try await setAttributes(request, context)
        }
        router.registerUnary(Self.method("RevokeGrant")) { (request: RevokeGrantRequest, context) in
            try await revoke(request, context)
        }
        router.registerUnary(Self.method("GetCustomer")) { (request: GetCustomerRequest, context) in
            try await customer(request, context)
        }
        router.registerUnary(Self.method("ListCustomerEvents")) { (request: ListCustomerEventsRequest, context) in
            try await events(request, context)
        }
        router.registerUnary(Self.method("RefreshStorePurchase")) { (request: RefreshStorePurchaseRequest, context) in
            try await refresh(request, context)
        }
        router.registerUnary(Self.method("GetRedemptionCode")) { (request: GetRedemptionCodeRequest, context) in
            try await redemptionCode(request, context)
        }
        registerWebhookMethods(on: &router)
        router.registerUnary(Self.method("ListCustomers")) { (request: ListCustomersRequest, context) in
            try await listCustomers(request, context)
        }
        router.registerUnary(Self.method("CountCustomers")) { (request: CountCustomersRequest, context) in
            try await countCustomers(request, context)
        }
        router.registerUnary(Self.method("FindCustomers")) { (request: FindCustomersRequest, context) in
            try await findCustomers(request, context)
        }
        router.registerUnary(Self.method("DescribeKey")) { (request: DescribeKeyRequest, context) in
            try await describeKey(request, context)
        }
        router.registerUnary(Self.method("DescribeTrust")) { (request: DescribeTrustRequest, context) in
            try await describeTrust(request, context)
        }
        registerAppStoreMethods(on: &router)
        registerMetricMethods(on: &router)
        registerPrivacyMethods(on: &router)
    }

    /// Stripe's ID prefixes a redemption code may be asked for by.
    static let redeemableIDPrefixes = ["cs_", "sub_", "cus_", "in_", "pi_"]

    /// A new code for the web purchase nobody owns that a Stripe ID names.
    private func redemptionCode(_ request: GetRedemptionCodeRequest, _ context: ServerContext) async throws
        -> RedemptionCode
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, _ in
            let id = request.stripeID
            guard Self.redeemableIDPrefixes.contains(where: id.hasPrefix), id.utf8.count <= 255,
                id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw DomainError.invalidRequest(
                    "stripe_id must be a Stripe checkout session (cs_), subscription (sub_), customer (cus_), invoice (in_) or payment intent (pi_) ID.")
            }
            guard let settings = tenant.stripe else {
                throw DomainError.tenantMisconfigured("Tenant '\(tenant.id)' takes no Stripe purchases (no \"stripe\" settings).")
            }
            let issued = try await engine.purchases.issueRedemptionCode(
                tenantID: tenant.id, store: .stripe, referenceID: id,
                validityMilliseconds: Int64(settings.redemptionCodeDays) * Milliseconds.perDay)
            var response = RedemptionCode()
            response.code = issued.code
            response.expiresAt = ProtoTimestamp(issued.expiresAt)
            response.transaction = Transaction(issued.purchase, ownerAppUserID: "")
            return response
        }
    }

    private func grant(_ request: GrantEntitlementRequest, _ context: ServerContext) async throws -> Grant {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            let outcome = try await engine.grants.grant(tenant: tenant, try GrantRequest(request))
            fields.appUserID = outcome.appUserID
            return Grant(outcome.grant, appUserID: outcome.appUserID)
        }
    }

    private func setAttributes(_ request: SetCustomerAttributesRequest, _ context: ServerContext) async throws
        -> SetCustomerAttributesResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            let outcome = try await engine.attributes.set(
                tenant: tenant, appUserID: request.appUserID, change: AttributeChange(request), by: .backend)
            fields.appUserID = outcome.appUserID
            return SetCustomerAttributesResponse(outcome)
        }
    }

    private func revoke(_ request: RevokeGrantRequest, _ context: ServerContext) async throws -> Grant {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            let outcome = try await engine.grants.revoke(tenantID: tenant.id, grantID: request.grantID, reason: request.reason)
            fields.appUserID = outcome.appUserID
            return Grant(outcome.grant, appUserID: outcome.appUserID)
        }
    }

    private func customer(_ request: GetCustomerRequest, _ context: ServerContext) async throws -> Customer {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, fields in
            let details = try engine.customers.details(tenantID: tenant.id, appUserID: try AppUserID.validate(request.appUserID))
            fields.appUserID = details.state.appUserID
            var customer = Customer()
            customer.customer = CustomerStatus(details.state, serverTime: engine.now())
            customer.aliases = details.aliases
            customer.grants = details.grants.map { Grant($0, appUserID: details.state.appUserID) }
            customer.transactions = details.purchases.map {
                Transaction($0, ownerAppUserID: details.state.appUserID)
            }
            customer.attributes = details.attributes.map(Attribute.init)
            customer.offerSignatures = details.offerSignatures.map(OfferSignature.init)
            return customer
        }
    }

    /// Google's answer for one token, fetched now and applied; a failed acknowledgement starts again.
    private func refresh(_ request: RefreshStorePurchaseRequest, _ context: ServerContext) async throws
        -> RefreshStorePurchaseResponse
    {
        try await log.call(context, requires: .secretKey, in: tenants) { tenant, fields in
            guard request.store == .playStore else {
                throw DomainError.invalidRequest("store must be PLAY_STORE: only Google Play purchases are fetched from the store.")
            }
            guard let playStore else {
                throw DomainError.serverMisconfigured("This server takes no Google Play purchases.")
            }
            let token = request.purchaseID
            try PlayStorePurchases.checkToken(token, field: "purchase_id")
            let stored = try engine.purchases.purchase(tenantID: tenant.id, store: .playStore, originalTransactionID: token)
            let productID = request.productID.isEmpty ? stored?.productID ?? "" : request.productID
            guard !productID.isEmpty else {
                throw DomainError.invalidRequest("product_id is required for a purchase the server does not hold yet.")
            }
            try PlayStorePurchases.checkProductID(productID, field: "product_id")
            let settings = try PlayStorePurchases.settings(of: tenant)
            let fetched: (purchase: StorePurchase, hints: [OwnerHint])
            if settings.products[productID] == .subscription {
                fetched = try await playStore.subscription(token: token, tenant: tenant)
            } else {
                fetched = (try await playStore.product(productID: productID, token: token, tenant: tenant, origin: .storeAPI), [])
            }
            let outcome = try await engine.purchases.applyStoreNotification(
                tenantID: tenant.id, notificationID: nil, purchase: fetched.purchase,
                reason: "Refreshed from Google Play by an operator.", cause: .storeAPI, ownerHints: fetched.hints)
            if stored?.acknowledgement.state == .failed {
                try await engine.acknowledgements.retry(tenantID: tenant.id, store: .playStore, originalTransactionID: token)
            }
            acknowledger?.wake()
            var response = RefreshStorePurchaseResponse()
            // Empty while nobody owns the purchase (fields.appUserID is the log's placeholder then, not an owner).
            var owner = ""
            if case .applied(let appUserID, _) = outcome {
                fields.appUserID = appUserID
                owner = appUserID
                let state = try await engine.customers.state(tenantID: tenant.id, appUserID: appUserID)
                response.customer = CustomerStatus(state, serverTime: engine.now())
            }
            if let after = try engine.purchases.purchase(tenantID: tenant.id, store: .playStore, originalTransactionID: token) {
                response.transaction = Transaction(after, ownerAppUserID: owner)
                // Stored for the first time counts, owned or not.
                response.changed = stored.map { !PurchaseVersions.sameData($0, after) } ?? true
            }
            return response
        }
    }

    private func events(_ request: ListCustomerEventsRequest, _ context: ServerContext) async throws
        -> ListCustomerEventsResponse
    {
        try await log.call(context, requires: .secretKey, scope: .read, in: tenants) { tenant, fields in
            let appUserID = try AppUserID.validate(request.appUserID)
            fields.appUserID = appUserID
            let page = try engine.customers.events(
                tenantID: tenant.id, appUserID: appUserID, pageSize: Int(request.pageSize), pageToken: request.pageToken)
            var response = ListCustomerEventsResponse()
            response.events = page.events.map(CustomerEvent.init)
            response.nextPageToken = page.nextPageToken
            return response
        }
    }
}

extension GrantRequest {
    /// The API's request in domain terms; timestamps and durations are checked here.
    init(_ request: GrantEntitlementRequest) throws(DomainError) {
        let expiresAt = try request.expiresAt.map { (timestamp) throws(DomainError) in
            try timestamp.requestTime(field: "expires_at")
        }
        let duration = try request.duration.map { (value) throws(DomainError) in
            try value.requestMilliseconds(field: "duration", allowed: 1...(ProtoDuration.maxSeconds * 1000))
        }
        self.init(
            appUserID: request.appUserID, entitlementID: request.entitlementID, expiresAt: expiresAt,
            durationMilliseconds: duration, reason: request.reason,
            idempotencyKey: request.idempotencyKey.isEmpty ? nil : request.idempotencyKey)
    }
}
