import EntitlementDomain
import JOSE
import Synchronization

/// Checks one tenant's user tokens: the signature with the tenant's HS256 secrets or its published ES256/RS256 keys
/// (the header's `alg` must be one of those the tenant has keys for, so `none` and an HS256 token signed with a public
/// key are refused before any key is used), then the claims (``UserTokenClaimCheck``).
///
/// A token whose signature verified is remembered until it expires, so an app sending the same token with every
/// call costs one signature check per token, not per call; its claims are checked again each time (the call's app
/// user ID, the time).
public final class UserTokenVerifier: Sendable {
    /// Tokens remembered at most; when full, expired ones go, and if none has, all do.
    static let rememberedTokens = 10_000
    /// Tokens longer than this are refused unread (a JWT of these claims is a few hundred bytes).
    static let maximumTokenBytes = 8 * 1024

    let claims: UserTokenClaimCheck
    private let secrets: [[UInt8]]
    private let keySet: JSONWebKeySet?
    private let verified = Mutex<[String: JSONWebTokenClaims]>([:])

    init(tenantID: String, settings: UserTokenSettings, keySet: JSONWebKeySet?) {
        claims = UserTokenClaimCheck(
            tenantID: tenantID, issuer: settings.issuer, maxLifetimeSeconds: settings.maxLifetimeSeconds)
        secrets = settings.hs256Secrets
        self.keySet = keySet
    }

    /// The token's `exp` (seconds) when it proves `appUserID` now, else why not.
    func verify(_ token: String, appUserID: String, nowSeconds: Int64) -> Result<Int64, UserTokenRefusal> {
        if let known = verified.withLock({ $0[token] }) {
            return claims.check(known, appUserID: appUserID, nowSeconds: nowSeconds)
        }
        let read: JSONWebTokenClaims
        switch signedClaims(token) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let claims): read = claims
        }
        let outcome = claims.check(read, appUserID: appUserID, nowSeconds: nowSeconds)
        if case .success = outcome { remember(token, read, nowSeconds: nowSeconds) }
        return outcome
    }

    /// The claims of a token whose signature verifies with one of the tenant's keys.
    private func signedClaims(_ token: String) -> Result<JSONWebTokenClaims, UserTokenRefusal> {
        guard token.utf8.count <= Self.maximumTokenBytes else {
            return .failure(UserTokenRefusal(.malformed, "the token is over \(Self.maximumTokenBytes) bytes"))
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            return .failure(UserTokenRefusal(.malformed, "the token is not a compact JWS: \(error.message)"))
        }
        do throws(JOSEError) {
            switch jws.header.alg ?? "" {
            case "HS256" where !secrets.isEmpty:
                try jws.verifyHS256(secrets: secrets)
            case "ES256" where keySet != nil, "RS256" where keySet != nil:
                guard let kid = jws.header.kid, let keySet else {
                    return .failure(UserTokenRefusal(.unknownKey, "the token's header has no kid naming one of the tenant's keys"))
                }
                if jws.header.alg == "ES256", let key = keySet.es256Keys[kid] {
                    try jws.verifyES256(by: key)
                } else if jws.header.alg == "RS256", let key = keySet.keys[kid] {
                    try jws.verifyRS256(by: key)
                } else {
                    return .failure(UserTokenRefusal(.unknownKey, "no \(jws.header.alg ?? "") key of the tenant has the token's kid"))
                }
            default:
                return .failure(
                    UserTokenRefusal(.algorithm, "the token's alg is not one this tenant's keys sign with (\(algorithms))"))
            }
        } catch {
            return .failure(UserTokenRefusal(.signature, error.message))
        }
        do {
            return .success(try JSONWebTokenClaims(payload: jws.payload))
        } catch {
            return .failure(UserTokenRefusal(.malformed, error.message))
        }
    }

    /// The algorithms the tenant's keys sign with, for messages.
    private var algorithms: String {
        var names: [String] = []
        if !secrets.isEmpty { names.append("HS256") }
        if let keySet {
            if !keySet.es256Keys.isEmpty { names.append("ES256") }
            if !keySet.keys.isEmpty { names.append("RS256") }
        }
        return names.joined(separator: ", ")
    }

    private func remember(_ token: String, _ claims: JSONWebTokenClaims, nowSeconds: Int64) {
        verified.withLock { verified in
            if verified.count >= Self.rememberedTokens {
                verified = verified.filter { ($0.value.expiresAt ?? 0) > nowSeconds }
                if verified.count >= Self.rememberedTokens { verified.removeAll() }
            }
            verified[token] = claims
        }
    }
}
