import AppStoreServerAPI
import BoundedText
import EntitlementDomain
import FileAccess
public import OutboundHTTP
import Synchronization

/// One App Store Server API client per tenant that configures `app_store.server_api`, made on first use (the key
/// file read then) and kept until the tenants file is reloaded (its token stays cached meanwhile).
public final class AppStoreServerAPIs: Sendable {
    private let clients = Mutex<(generation: UInt64, byTenant: [String: AppStoreServerAPIClient])>((0, [:]))
    private let tenants: TenantRegistry
    private let http: OutboundHTTPClient?

    public init(tenants: TenantRegistry, http: OutboundHTTPClient?) {
        self.tenants = tenants
        self.http = http
    }

    /// The tenant's client. `failedPrecondition` when it configures none or this server makes no outbound calls;
    /// `unavailable` when its key file cannot be read any more.
    private func cachedClient(for tenant: Tenant, settings: AppStoreSettings) throws(DomainError) -> AppStoreServerAPIClient {
        guard let api = settings.serverAPI else {
            throw .failedPrecondition(
                "Tenant '\(tenant.id)' does not call the App Store Server API (no \"app_store.server_api\" settings): send the signed transaction instead.")
        }
        let generation = tenants.snapshot.generation
        if let cached = clients.withLock({ $0.generation == generation ? $0.byTenant[tenant.id] : nil }) { return cached }
        guard let http else {
            throw .failedPrecondition("This server makes no outbound calls: its outbound HTTP client is not set up.")
        }
        let pem: String
        switch FileSystem.readFile(api.keyFilePath) {
        case .success(let bytes): pem = String(decoding: bytes, as: UTF8.self)
        case .failure(let error):
            throw .unavailable("The In-App Purchase key of tenant '\(tenant.id)' cannot be read: \(error.reason)")
        }
        let client: AppStoreServerAPIClient
        do throws(AppStoreServerAPIError) {
            client = try AppStoreServerAPIClient(
                credentials: AppStoreAPICredentials(
                    p8: pem, keyID: api.keyID, issuerID: api.issuerID, bundleID: settings.bundleID),
                http: http, productionURL: api.productionURL, sandboxURL: api.sandboxURL)
        } catch {
            throw .unavailable("The App Store Server API settings of tenant '\(tenant.id)' cannot be used: \(error.message)")
        }
        clients.withLock { cache in
            if cache.generation != generation { cache = (generation, [:]) }
            cache.byTenant[tenant.id] = client
        }
        return client
    }

    /// The tenant's client and the environments a transaction ID is looked up in, as Apple advises: production
    /// first, then sandbox, of those the tenant accepts (local environments have no server to ask).
    func client(for tenant: Tenant, settings: AppStoreSettings) throws(DomainError)
        -> (AppStoreServerAPIClient, [AppStoreAPIEnvironment])
    {
        let environments = [(AppStoreEnvironmentName.production, AppStoreAPIEnvironment.production), (.sandbox, .sandbox)]
            .filter { settings.accepts($0.0) }.map(\.1)
        guard !environments.isEmpty else {
            throw .failedPrecondition(
                "Tenant '\(tenant.id)' accepts only local App Store environments, which Apple's server does not know.")
        }
        return (try cachedClient(for: tenant, settings: settings), environments)
    }
}

extension DomainError {
    /// Apple's answer as the caller sees it: a transaction Apple does not know is NOT_FOUND, a malformed ID or
    /// extension INVALID_ARGUMENT, a refused token or app our setup's problem, Apple's limits FAILED_PRECONDITION, and
    /// anything passing UNAVAILABLE.
    init(_ error: AppStoreServerAPIError) {
        let message = "App Store Server API: \(error.message)"
        switch (error.code, error.appleErrorCode) {
        case (.refused, AppleErrorCodes.transactionIDNotFound?), (.refused, 4040005?):
            self = .notFound(message)
        case (.refused, 4000006?), (.refused, 4000008?), (.refused, 4000009?), (.refused, 4000010?),
            (.refused, 4000011?), (.refused, 4000020?):
            self = .invalidArgument(message)
        case (.unauthorized, _), (.configuration, _), (.refused, 4040003?), (.refused, 4000002?),
            // Not extendable (Apple's limits), no notification URL, a test notification Apple no longer knows.
            (.refused, 4030004?), (.refused, 4030005?), (.refused, 4030007?), (.refused, 4040007?), (.refused, 4040008?):
            self = .failedPrecondition(message)
        case (.refused, _), (.unreachable, _), (.malformedResponse, _):
            self = .unavailable(message)
        }
    }
}
