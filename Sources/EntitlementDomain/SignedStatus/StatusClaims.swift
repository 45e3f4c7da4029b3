import Encodings

/// The claims of a signed status (`CustomerStatus.signed_status`), in the webhooks' vocabulary for the status:
///
///     {"tenant":"demo","sub":"user-1","version":4,
///      "status":{"state":"active","entitlements":[{"id":"pro","source":"app_store","product_id":"pro_monthly",
///                "expires_at":"2027-01-05T10:00:00.000Z","will_renew":true,"in_grace_period":false,
///                "in_billing_retry":false}]},
///      "iat":1796292000,"exp":1796551200}
///
/// `sub` is the canonical app user ID; `alias`, present only when it differs, the ID the caller asked about, so an app
/// that knows its user by an alias can still tell the status is its user's.
public enum StatusClaims {
    /// The claims' JSON for `state` at `issuedAt`, valid until `expiresAt` (both in seconds since the epoch).
    public static func payload(
        _ state: CustomerState, tenantID: String, askedAs appUserID: String, issuedAt: Int64, expiresAt: Int64
    ) -> [UInt8] {
        var claims: [(String, JSONValue)] = [("tenant", .string(tenantID)), ("sub", .string(state.appUserID))]
        if appUserID != state.appUserID { claims.append(("alias", .string(appUserID))) }
        claims += [
            ("version", .number(String(state.version))),
            ("status", CustomerJSON.status(state.status)),
            ("iat", .number(String(issuedAt))),
            ("exp", .number(String(expiresAt))),
        ]
        return Array(JSONValue.object(claims).text.utf8)
    }
}
