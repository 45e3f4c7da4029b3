/// Why a user token was not accepted: a stable ``Reason`` (counted by reason, and what the console shows) and a message
/// naming the claim or check that failed. Never carries the token or any part of it.
struct UserTokenRefusal: Error, Sendable, Hashable {
    enum Reason: String, Sendable, CaseIterable {
        /// The call carried no token.
        case missing
        /// Not a compact JWS whose payload is a JSON object of JWT claims.
        case malformed
        /// `alg` is not one the tenant's keys sign with (`none`, HS256 without secrets, ...).
        case algorithm
        /// `kid` names no key of the tenant's key set (after fetching it again, for a URL).
        case unknownKey = "unknown_key"
        case signature
        case issuer
        case audience
        case subject
        case expired
        case notYetValid = "not_yet_valid"
        /// `iat` missing, or in the future.
        case issuedAt = "issued_at"
        /// `exp - iat`, or `exp` from now, longer than the tenant allows.
        case lifetime
        /// The tenant's keys could not be read (its JWKS URL unreachable): not the token's fault.
        case keysUnavailable = "keys_unavailable"
    }

    let reason: Reason
    let message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
