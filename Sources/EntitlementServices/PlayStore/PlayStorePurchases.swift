import BoundedText
public import EntitlementDomain
import GooglePlay
import GooglePlayAPI
public import OutboundHTTP
public import RPCCore

/// Google Play purchases for every tenant that takes them: Google's answer for a token, fetched with the tenant's
/// service account and turned into a purchase by ``PlayStoreInterpretation``. A token proves nothing by itself;
/// only Google's answer does.
///
/// One API client per tenant (its access token cached and shared), kept until the tenants file is reloaded.
///
/// What Google charged comes from its order (`orders.get`), fetched for an order whose amounts the stored purchase
/// lacks (``PlayStoreInterpretation`` says what stands in without it). Access never waits on it: a failed order
/// fetch is logged and the purchase applied without a price.
public final class PlayStorePurchases: Sendable {
    /// Google's tokens are a few hundred bytes; anything much longer is not one.
    static let maxTokenBytes = 4096
    static let maxProductIDBytes = 150

    private let clients: MadeUntilReload<String, PlayDeveloperAPI>
    let http: OutboundHTTPClient
    private let now: @Sendable () -> UnixTime
    /// The purchases stored, which say whether an order's amounts are known; nil: every fetch asks for the order.
    private let stored: StorePurchases?
    private let log: Logger

    public init(
        tenants: TenantRegistry, http: OutboundHTTPClient, now: @escaping @Sendable () -> UnixTime,
        stored: StorePurchases?, log: Logger
    ) {
        clients = MadeUntilReload(tenants: tenants)
        self.http = http
        self.now = now
        self.stored = stored
        self.log = log
    }

    static func settings(of tenant: Tenant) throws(DomainError) -> PlayStoreSettings {
        guard let settings = tenant.playStore else {
            throw .tenantMisconfigured("Tenant '\(tenant.id)' does not accept Google Play purchases (no \"play_store\" settings).")
        }
        return settings
    }

    /// The tenant's API client, made on first use (its key file read then).
    func api(for tenant: Tenant) throws(DomainError) -> PlayDeveloperAPI {
        let settings = try Self.settings(of: tenant)
        return try clients.value(for: tenant.id) { () throws(DomainError) in
            do throws(GooglePlayAPIError) {
                let key = try ServiceAccountKey(contentsOf: settings.serviceAccountKeyPath)
                let clock = now
                let credentials = try AccessTokenSource(key: key, http: http) { clock().milliseconds }
                guard let base = OutboundURL(settings.apiBaseURL) else {
                    throw GooglePlayAPIError(.configuration, "api_base_url \(settings.apiBaseURL.quotedForMessage) is not a URL")
                }
                return PlayDeveloperAPI(packageName: settings.packageName, baseURL: base, http: http, credentials: credentials)
            } catch {
                throw .tenantMisconfigured("Google Play settings of tenant '\(tenant.id)': \(error.message)")
            }
        }
    }

    /// The purchase a device presents: the product it names and its token, checked against Google.
    func purchase(productID: String, token: String, tenant: Tenant, field: String) async throws(DomainError)
        -> (purchase: StorePurchase, hints: [OwnerHint])
    {
        try Self.checkProductID(productID, field: field + ".product_id")
        try Self.checkToken(token, field: field + ".purchase_token")
        let settings = try Self.settings(of: tenant)
        guard let type = settings.products[productID] else {
            throw .unmappedProduct(
                "Play product \(productID.quotedForMessage) is not in the app's play_store products, so the server cannot tell a subscription from a one-time product.")
        }
        if type == .subscription {
            return try await subscription(token: token, productID: productID, tenant: tenant)
        }
        return (try await product(productID: productID, token: token, tenant: tenant, origin: .device), [])
    }

    /// A subscription as Google shows it now; `productID` (when the device named one) must be among its items.
    /// `refreshOrder` asks for the order even when its amounts are known (a void: the order states the refund).
    func subscription(
        token: String, productID: String? = nil, tenant: Tenant, notification: SubscriptionNotificationType? = nil,
        notifiedAt: UnixTime? = nil, refreshOrder: Bool = false
    ) async throws(DomainError) -> (purchase: StorePurchase, hints: [OwnerHint]) {
        let api = try api(for: tenant)
        let data: SubscriptionPurchaseV2
        do throws(GooglePlayAPIError) {
            data = try await api.subscription(token: token)
        } catch {
            throw Self.domainError(error)
        }
        let order = await order(
            PlayStoreInterpretation.currentOrderID(of: data), token: token, api: api, tenant: tenant,
            refresh: refreshOrder)
        let facts = PlayStoreInterpretation.SubscriptionFacts(
            token: token, purchase: data, fetchedAt: now(), notification: notification, notifiedAt: notifiedAt,
            order: order)
        var record = try PlayStoreInterpretation.purchase(
            fromSubscription: facts, productID: productID, tenant: tenant, settings: try Self.settings(of: tenant))
        if productID != nil { record.origin = .device }
        var hints: [OwnerHint] = []
        if let previous = PlayStoreInterpretation.previousPurchase(of: data) {
            if !previous.token.isEmpty { hints.append(.ownerOf(originalTransactionID: previous.token)) }
            if !previous.accountID.isEmpty { hints.append(.appAccountToken(previous.accountID)) }
        }
        return (record, hints)
    }

    /// A one-time product purchase as Google shows it now.
    func product(
        productID: String, token: String, tenant: Tenant, origin: PurchaseOrigin, refreshOrder: Bool = false
    ) async throws(DomainError) -> StorePurchase {
        let api = try api(for: tenant)
        let data: ProductPurchase
        do throws(GooglePlayAPIError) {
            data = try await api.product(productID: productID, token: token)
        } catch {
            throw Self.domainError(error)
        }
        let order = await order(data.orderId, token: token, api: api, tenant: tenant, refresh: refreshOrder)
        return try PlayStoreInterpretation.purchase(
            fromProduct: data, token: token, productID: productID, fetchedAt: now(), tenant: tenant,
            settings: try Self.settings(of: tenant), origin: origin, order: order)
    }

    /// Google's record of order `orderID` of the purchase `token`; nil when there is none yet, the stored purchase
    /// already has its amounts (and not `refresh`), or Google does not give it.
    private func order(_ orderID: String?, token: String, api: PlayDeveloperAPI, tenant: Tenant, refresh: Bool) async
        -> PlayOrder?
    {
        guard let orderID, !orderID.isEmpty else { return nil }
        if !refresh, let stored,
            let known = try? stored.purchase(tenantID: tenant.id, store: .playStore, originalTransactionID: token),
            known.transactionID == orderID, known.sale != nil, known.price != nil
        {
            return nil
        }
        do throws(GooglePlayAPIError) {
            return try await api.order(id: orderID)
        } catch {
            log.warning(
                "google play order not fetched: the purchase is applied without its amounts",
                ["tenant": tenant.id, "error": error.message])
            return nil
        }
    }

    /// Google's failures as the caller sees them: Google down or not letting us in yet is worth a retry; a token
    /// Google does not know is the caller's.
    static func domainError(_ error: GooglePlayAPIError) -> DomainError {
        switch error.code {
        case .unavailable, .badResponse, .permissionDenied: .storeUnavailable(error.message)
        case .notFound, .invalidRequest:
            .notApplicable("Google Play does not confirm this purchase token: \(error.message)")
        // The service account cannot be used now (a rotated key, clock skew, an unreadable file): ours to fix, and
        // worth retrying once it is.
        case .configuration: .credentialsUnusable(error.message)
        }
    }

    static func checkToken(_ token: String, field: String) throws(DomainError) {
        guard !token.isEmpty else { throw .invalidRequest("\(field) is empty.") }
        guard token.utf8.count <= maxTokenBytes else {
            throw .invalidRequest("\(field) is longer than \(maxTokenBytes) bytes; Play purchase tokens are far shorter.")
        }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidRequest("\(field) holds characters no Play purchase token has (only printable ASCII).")
        }
    }

    static func checkProductID(_ productID: String, field: String) throws(DomainError) {
        guard !productID.isEmpty else { throw .invalidRequest("\(field) is empty.") }
        guard productID.utf8.count <= maxProductIDBytes,
            productID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw .invalidRequest("\(field) \(productID.quotedForMessage) is not a Play product ID (printable ASCII, at most \(maxProductIDBytes) bytes).")
        }
    }
}
