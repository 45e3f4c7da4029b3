import AppStoreServerAPI
import EntitlementDomain
import FileAccess
public import OutboundHTTP

/// One App Store Server API client per tenant that configures `app_store.server_api`, made on first use (the key
/// file read then) and kept until the tenants file is reloaded (its token stays cached meanwhile).
public final class AppStoreServerAPIs: Sendable {
    private let clients: MadeUntilReload<String, AppStoreServerAPIClient>
    private let http: OutboundHTTPClient?

    public init(tenants: TenantRegistry, http: OutboundHTTPClient?) {
        clients = MadeUntilReload(tenants: tenants)
        self.http = http
    }

    /// The tenant's client. `tenantMisconfigured` when it configures none (saying what `use` needs instead),
    /// `serverMisconfigured` when this server makes no outbound calls, `credentialsUnusable` when its key file cannot
    /// be read any more.
    private func cachedClient(
        for tenant: Tenant, settings: AppStoreSettings, use: AppStoreServerAPIUse
    ) throws(DomainError) -> AppStoreServerAPIClient {
        guard let api = settings.serverAPI else { throw .tenantMisconfigured(use.withoutSettings(tenantID: tenant.id)) }
        return try clients.value(for: tenant.id) { () throws(DomainError) in
            guard let http else {
                throw .serverMisconfigured("This server makes no outbound calls: its outbound HTTP client is not set up.")
            }
            let credentials = try Self.credentials(of: tenant, settings: settings, api: api)
            do throws(AppStoreServerAPIError) {
                return try AppStoreServerAPIClient(
                    credentials: credentials, http: http, productionURL: api.productionURL, sandboxURL: api.sandboxURL)
            } catch {
                throw .credentialsUnusable(
                    "The App Store Server API settings of tenant '\(tenant.id)' cannot be used: \(error.message)")
            }
        }
    }

    /// The tenant's In-App Purchase key, read from its file now; `credentialsUnusable` when it cannot be read or used.
    static func credentials(of tenant: Tenant, settings: AppStoreSettings, api: AppStoreServerAPISettings)
        throws(DomainError) -> AppStoreAPICredentials
    {
        let pem: String
        switch FileSystem.readFile(api.keyFilePath) {
        case .success(let bytes): pem = String(decoding: bytes, as: UTF8.self)
        case .failure(let error):
            throw .credentialsUnusable("The In-App Purchase key of tenant '\(tenant.id)' cannot be read: \(error.reason)")
        }
        do throws(AppStoreServerAPIError) {
            return try AppStoreAPICredentials(p8: pem, keyID: api.keyID, issuerID: api.issuerID, bundleID: settings.bundleID)
        } catch {
            throw .credentialsUnusable("The In-App Purchase key of tenant '\(tenant.id)' cannot be used: \(error.message)")
        }
    }

    /// The tenant's client for `use` and the environments a transaction ID is looked up in, as Apple advises:
    /// production first, then sandbox, of those the tenant accepts (local environments have no server to ask).
    func client(for tenant: Tenant, settings: AppStoreSettings, use: AppStoreServerAPIUse) throws(DomainError)
        -> (AppStoreServerAPIClient, [AppStoreAPIEnvironment])
    {
        let environments = try Self.environments(of: tenant, settings: settings)
        return (try cachedClient(for: tenant, settings: settings, use: use), environments)
    }

    /// The environments of Apple's server the tenant accepts, production first.
    static func environments(of tenant: Tenant, settings: AppStoreSettings) throws(DomainError)
        -> [AppStoreAPIEnvironment]
    {
        let environments = [(AppStoreEnvironmentName.production, AppStoreAPIEnvironment.production), (.sandbox, .sandbox)]
            .filter { settings.accepts($0.0) }.map(\.1)
        guard !environments.isEmpty else {
            throw .tenantMisconfigured(
                "Tenant '\(tenant.id)' accepts only local App Store environments, which Apple's server does not know.")
        }
        return environments
    }
}

/// What a call to Apple's App Store Server API is for, so that a tenant without `app_store.server_api` hears what
/// that use needs, and what to do instead where there is another way.
enum AppStoreServerAPIUse {
    case purchaseByTransactionID
    case restoreFromHistory
    case reconciliation
    case orderLookup
    case renewalExtension
    case consumptionInformation
    case testNotification
    case setupCheck

    /// `Tenant 'demo' has no "app_store.server_api" settings, which checking its App Store setup needs: add ...`.
    func withoutSettings(tenantID: String) -> String {
        let (purpose, instead): (String, String?) =
            switch self {
            case .purchaseByTransactionID:
                ("a purchase by transaction ID", "or send the signed transaction (app_store.signed_transaction) instead")
            case .restoreFromHistory:
                ("a restore from Apple's transaction history", "or restore the device's signed transactions instead")
            case .reconciliation: ("reading Apple's notification history", nil)
            case .orderLookup: ("looking up an order ID with Apple", nil)
            case .renewalExtension: ("extending a renewal date with Apple", nil)
            case .consumptionInformation: ("sending consumption information to Apple", nil)
            case .testNotification: ("asking Apple for a test notification", nil)
            case .setupCheck: ("checking the tenant's App Store setup with Apple", nil)
            }
        return "Tenant '\(tenantID)' has no \"app_store.server_api\" settings, which \(purpose) needs: add the app's "
            + "In-App Purchase key to them (key_file, key_id and issuer_id; see Config/tenants.example.json)"
            + (instead.map { ", \($0)." } ?? ".")
    }
}

extension DomainError {
    /// Apple's answer as the caller sees it: a transaction Apple does not know is NOT_FOUND, a malformed ID or
    /// extension INVALID_ARGUMENT, a refused token or app the tenant's settings, Apple's limits a state that refuses it, and
    /// anything passing UNAVAILABLE.
    init(_ error: AppStoreServerAPIError) {
        let message = "App Store Server API: \(error.message)"
        switch (error.code, error.appleErrorCode) {
        case (.refused, AppleErrorCodes.transactionIDNotFound?), (.refused, 4040005?):
            self = .notFound(message)
        case (.refused, 4000006?), (.refused, 4000008?), (.refused, 4000009?), (.refused, 4000010?),
            (.refused, 4000011?), (.refused, 4000020?):
            self = .invalidRequest(message)
        // Our key refused, or an app Apple does not know: the tenant's settings.
        case (.unauthorized, _), (.configuration, _), (.refused, 4040003?), (.refused, 4000002?):
            self = .tenantMisconfigured(message)
        // Not extendable (Apple's limits), no notification URL, a test notification Apple no longer knows.
        case (.refused, 4030004?), (.refused, 4030005?), (.refused, 4030007?), (.refused, 4040007?), (.refused, 4040008?):
            self = .wrongState(message)
        case (.refused, _), (.unreachable, _), (.malformedResponse, _):
            self = .storeUnavailable(message)
        }
    }
}
