import Encodings
import Foundation

/// What a verified signed status says (the server's `StatusClaims`): whose status, which version, the entitlements,
/// when it was signed and until when the app may trust it without the server.
struct SignedStatusClaims: Sendable, Hashable {
    var tenant: String
    /// The canonical app user ID.
    var subject: String
    /// The ID the app asked about, when it is an alias of `subject`.
    var alias: String?
    var version: UInt64
    var status: SubscriptionStatus
    var issuedAt: Date
    var expiresAt: Date

    /// From the claims' JSON; nil when a claim is missing or of the wrong kind.
    init?(payload: [UInt8]) {
        guard let claims = try? JSONReader.read(JSONValue.self, from: payload), let tenant = claims["tenant"]?.string,
            let subject = claims["sub"]?.string, let versionNumber = claims["version"]?.int64, versionNumber >= 0,
            let issuedAt = claims["iat"]?.int64, let expiresAt = claims["exp"]?.int64,
            let state = claims["status"]?["state"]?.string, case .array(let items)? = claims["status"]?["entitlements"]
        else { return nil }
        var entitlements: Set<Entitlement> = []
        for item in items {
            guard let entitlement = Self.entitlement(item) else { return nil }
            entitlements.insert(entitlement)
        }
        self.tenant = tenant
        self.subject = subject
        alias = claims["alias"]?.string
        version = UInt64(versionNumber)
        status = state == "active" && !entitlements.isEmpty ? .active(entitlements) : .inactive
        self.issuedAt = Date(timeIntervalSince1970: TimeInterval(issuedAt))
        self.expiresAt = Date(timeIntervalSince1970: TimeInterval(expiresAt))
    }

    /// The claims of a token already verified (kept in the cache or shown), read again without checking it.
    init?(token: String) {
        guard let jws = CompactToken(token) else { return nil }
        self.init(payload: jws.payload)
    }

    /// Whether the status is about `appUserID`, by its canonical ID or the alias it was asked by.
    func names(_ appUserID: String) -> Bool { subject == appUserID || alias == appUserID }

    private static func entitlement(_ item: JSONValue) -> Entitlement? {
        guard let id = item["id"]?.string, let source = item["source"]?.string else { return nil }
        var expiresAt: Date?
        if let text = item["expires_at"]?.string {
            guard let date = Self.time(text) else { return nil }
            expiresAt = date
        }
        return Entitlement(
            id: id, source: Self.source(source), productID: item["product_id"]?.string ?? "", expiresAt: expiresAt,
            willRenew: flag(item["will_renew"]), inGracePeriod: flag(item["in_grace_period"]),
            inBillingRetry: flag(item["in_billing_retry"]))
    }

    private static func flag(_ value: JSONValue?) -> Bool {
        if case .bool(true)? = value { true } else { false }
    }

    private static func source(_ name: String) -> Entitlement.Source {
        switch name {
        case "app_store": .appStore
        case "play_store": .playStore
        case "web": .web
        case "grant": .grant
        default: .unknown
        }
    }

    /// RFC 3339 with milliseconds, as the server writes times (`2027-01-06T07:34:04.300Z`).
    private static func time(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
