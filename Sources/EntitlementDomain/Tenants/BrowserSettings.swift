/// A tenant's `web` configuration: the browser origins whose pages may call the API with the tenant's keys
/// (gRPC-Web, cross-origin).
///
///     "web": {
///       "allowed_origins": ["https://app.example.com", "http://localhost:8080"]  // required, 1–100 origins, each
///                                                      // scheme://host[:port] as a browser sends it in Origin:
///                                                      // http or https, lower-case host, no default port, no
///                                                      // path, query or trailing slash, no "*"
///     }
///
/// The server answers CORS preflights for an origin any tenant lists (a preflight carries no key); each call is then
/// checked against its own tenant's list after authentication. Calls without an `Origin` header (not from a
/// browser) are not checked. The rules are in BrowserSettings+Rules.swift, shared by the tenants file reader and
/// ``Tenant/init(id:publicKeyHashes:secretKeyHashes:entitlements:allowUndeclaredEntitlements:products:appStore:playStore:stripe:browser:webhooks:commissions:exchangeRates:attributes:privacy:retention:)``.
public struct BrowserSettings: Sendable, Hashable {
    public static let allowedOriginCountRange: ClosedRange<Int> = 1...100

    /// Origins exactly as browsers send them.
    public var allowedOrigins: [String]

    public init(allowedOrigins: [String]) {
        self.allowedOrigins = allowedOrigins
    }

    /// Whether a page from `origin` (an `Origin` header, compared exactly) may call with this tenant's keys.
    public func allowsOrigin(_ origin: String) -> Bool {
        allowedOrigins.contains(origin)
    }
}
