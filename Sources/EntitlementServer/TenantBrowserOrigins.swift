import EntitlementDomain
public import EntitlementServices
public import HTTP2Transport

/// The transport's CORS policy from the tenants in force: an origin is allowed when any tenant lists it in
/// `web.allowed_origins`. A preflight carries no key, so it cannot be told apart by tenant; each call's own tenant
/// is checked after authentication (``CallerAuthentication``). Reads the registry on each request, so a reload
/// (SIGHUP) applies at once.
public struct TenantBrowserOrigins: GRPCWebCORSPolicy {
    let tenants: TenantRegistry
    public let maxAgeSeconds: Int

    public init(tenants: TenantRegistry, maxAgeSeconds: Int) {
        self.tenants = tenants
        self.maxAgeSeconds = maxAgeSeconds
    }

    public func allowsOrigin(_ origin: String) -> Bool {
        tenants.directory.tenants.contains { $0.browser?.allowsOrigin(origin) ?? false }
    }
}
