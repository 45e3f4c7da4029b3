import BoundedText
import JOSE

/// The claims rules of a user token, apart from its signature: `iss` the tenant's issuer, `aud` naming the tenant,
/// `sub` the app user ID the call names, `exp` in the future, `nbf` (when present) and `iat` not in the future, and
/// neither `exp - iat` nor `exp` from now beyond the tenant's maximum lifetime. Clocks may disagree by
/// ``clockSkewSeconds`` either way.
struct UserTokenClaimCheck: Sendable {
    /// Tokens come from the tenant's servers, whose clocks are synchronised as ours is: a few seconds cover it.
    static let clockSkewSeconds: Int64 = 5

    let tenantID: String
    let issuer: String
    let maxLifetimeSeconds: Int64

    /// The time the token stops being accepted (its `exp`, seconds), or why it is refused now.
    func check(_ claims: JSONWebTokenClaims, appUserID: String, nowSeconds now: Int64) -> Result<Int64, UserTokenRefusal> {
        // Every NumericDate was read within 1970...9999 and `now` is a clock's, so no sum below overflows.
        guard claims.issuer == issuer else {
            return .failure(UserTokenRefusal(.issuer, "the token's iss is not this tenant's issuer \(issuer.quotedForMessage)"))
        }
        guard claims.audience.contains(tenantID) else {
            return .failure(UserTokenRefusal(.audience, "the token's aud does not name tenant \(tenantID.quotedForMessage)"))
        }
        guard claims.subject == appUserID else {
            return .failure(
                UserTokenRefusal(.subject, "the token's sub is not the app user ID the call names, \(appUserID.quotedForMessage)"))
        }
        guard let expiresAt = claims.expiresAt else { return .failure(UserTokenRefusal(.expired, "the token has no exp")) }
        guard expiresAt + Self.clockSkewSeconds > now else {
            return .failure(UserTokenRefusal(.expired, "the token expired at \(expiresAt) (exp; now \(now))"))
        }
        if let notBefore = claims.notBefore, notBefore > now + Self.clockSkewSeconds {
            return .failure(UserTokenRefusal(.notYetValid, "the token is not valid before \(notBefore) (nbf; now \(now))"))
        }
        guard let issuedAt = claims.issuedAt else { return .failure(UserTokenRefusal(.issuedAt, "the token has no iat")) }
        guard issuedAt <= now + Self.clockSkewSeconds else {
            return .failure(UserTokenRefusal(.issuedAt, "the token was issued in the future (iat \(issuedAt); now \(now))"))
        }
        guard expiresAt - issuedAt <= maxLifetimeSeconds, expiresAt - now <= maxLifetimeSeconds + Self.clockSkewSeconds else {
            return .failure(
                UserTokenRefusal(
                    .lifetime, "the token lives longer than the tenant's max_lifetime_seconds (\(maxLifetimeSeconds)): "
                        + "exp - iat is \(expiresAt - issuedAt)"))
        }
        return .success(expiresAt)
    }
}
