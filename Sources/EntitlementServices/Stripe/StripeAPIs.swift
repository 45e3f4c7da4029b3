import BoundedText
import EntitlementDomain
import FileAccess
public import OutboundHTTP
import StripeAPI

/// One Stripe API client per tenant that configures an API key (`stripe.api_key_file`), made on first use (the key
/// file read then) and kept until the tenants file is reloaded. Without an outbound HTTP client no tenant gets one.
public final class StripeAPIs: Sendable {
    private let clients: MadeUntilReload<String, StripeAPI>
    private let http: OutboundHTTPClient?

    public init(tenants: TenantRegistry, http: OutboundHTTPClient?) {
        clients = MadeUntilReload(tenants: tenants)
        self.http = http
    }

    /// The tenant's client; nil when it configures no API key (events are then applied from their own data).
    /// `credentialsUnusable` when its key file is gone or changed since the tenants file was read, a misconfiguration
    /// when it cannot be made otherwise: a failure of our setup, not of the event, so the webhook answers 503 and
    /// Stripe delivers the event again once it is fixed.
    func api(for tenant: Tenant, settings: StripeSettings) throws(DomainError) -> StripeAPI? {
        guard let keyPath = settings.apiKeyPath else { return nil }
        return try clients.value(for: tenant.id) { () throws(DomainError) in
            guard let http else {
                throw .serverMisconfigured("Tenant '\(tenant.id)' configures a Stripe API key, but this server makes no outbound calls.")
            }
            let key = try Self.readKey(keyPath, tenantID: tenant.id)
            guard let base = OutboundURL(settings.apiBaseURL) else {
                throw .tenantMisconfigured("Stripe api_base_url \(settings.apiBaseURL.quotedForMessage) of tenant '\(tenant.id)' is not a URL.")
            }
            return StripeAPI(baseURL: base, apiKey: key, http: http)
        }
    }

    static let keyPrefixes = ["sk_live_", "sk_test_", "rk_live_", "rk_test_"]
    static let maxKeyFileBytes = 1024

    /// The key in `path`: one secret or restricted key, surrounding white space ignored. Errors never quote it.
    static func readKey(_ path: String, tenantID: String) throws(DomainError) -> String {
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .success(let read): bytes = read
        case .failure(let error):
            throw .credentialsUnusable("Stripe api_key_file of tenant '\(tenantID)' cannot be read: \(error)")
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let trimmed = bytes.prefix(maxKeyFileBytes).drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        let key = String(decoding: trimmed, as: UTF8.self)
        guard bytes.count <= maxKeyFileBytes, keyPrefixes.contains(where: key.hasPrefix),
            key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw .credentialsUnusable(
                "Stripe api_key_file of tenant '\(tenantID)' does not hold one sk_live_, sk_test_, rk_live_ or rk_test_ key.")
        }
        return key
    }
}
