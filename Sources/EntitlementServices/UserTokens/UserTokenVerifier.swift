import EntitlementDomain
import JOSE
import SigningKeys
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
    /// The tenant's ES256 and RS256 keys (a JWKS file's, or fetched from its URL); nil with HS256 only.
    private let keys: PublishedKeySet?
    private let verified = Mutex<[String: JSONWebTokenClaims]>([:])

    init(tenantID: String, settings: UserTokenSettings, keys: PublishedKeySet?) {
        claims = UserTokenClaimCheck(
            tenantID: tenantID, issuer: settings.issuer, maxLifetimeSeconds: settings.maxLifetimeSeconds)
        secrets = settings.hs256Secrets
        self.keys = keys
    }

    /// The token's `exp` (seconds) when it proves `appUserID` now, else why not; nil when its key must be fetched
    /// first (``verify(_:appUserID:nowSeconds:)`` waits for it). Never waits.
    func verifyNow(_ token: String, appUserID: String, nowSeconds: Int64) -> Result<Int64, UserTokenRefusal>? {
        if let known = verified.withLock({ $0[token] }) {
            return claims.check(known, appUserID: appUserID, nowSeconds: nowSeconds)
        }
        let signed: Signed
        switch parse(token) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let parsed): signed = parsed
        }
        let keySet: JSONWebKeySet?
        if case .published(let kid) = signed.key {
            guard let fresh = keys?.fresh(containing: kid) else {
                guard keys?.isFetched == true else {
                    return .failure(UserTokenRefusal(.unknownKey, "no key of the tenant has the token's kid"))
                }
                return nil
            }
            keySet = fresh
        } else {
            keySet = nil
        }
        return finish(token, signed, keySet, appUserID: appUserID, nowSeconds: nowSeconds)
    }

    /// ``verifyNow(_:appUserID:nowSeconds:)``, fetching the tenant's key set when the token's `kid` is not in it.
    func verify(_ token: String, appUserID: String, nowSeconds: Int64) async -> Result<Int64, UserTokenRefusal> {
        if let outcome = verifyNow(token, appUserID: appUserID, nowSeconds: nowSeconds) { return outcome }
        guard case .success(let signed) = parse(token), case .published(let kid) = signed.key, let keys else {
            return .failure(UserTokenRefusal(.keysUnavailable, "the tenant's keys are not configured"))
        }
        switch await keys.keySet(containing: kid) {
        case .success(let keySet): return finish(token, signed, keySet, appUserID: appUserID, nowSeconds: nowSeconds)
        case .failure(let error) where error.code == .notFound:
            return .failure(UserTokenRefusal(.unknownKey, "no key of the tenant has the token's kid"))
        case .failure(let error):
            return .failure(UserTokenRefusal(.keysUnavailable, error.message))
        }
    }

    /// A token read but not yet verified, and which key checks it.
    private struct Signed {
        enum Key {
            case secrets
            /// The published key with this `kid`.
            case published(kid: String)
        }

        let jws: CompactJWS
        let key: Key
    }

    /// The token as a JWS, and the key its header's `alg` and `kid` choose among the tenant's.
    private func parse(_ token: String) -> Result<Signed, UserTokenRefusal> {
        guard token.utf8.count <= Self.maximumTokenBytes else {
            return .failure(UserTokenRefusal(.malformed, "the token is over \(Self.maximumTokenBytes) bytes"))
        }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token)
        } catch {
            return .failure(UserTokenRefusal(.malformed, "the token is not a compact JWS: \(error.message)"))
        }
        switch jws.header.alg ?? "" {
        case "HS256" where !secrets.isEmpty:
            return .success(Signed(jws: jws, key: .secrets))
        case "ES256" where keys != nil, "RS256" where keys != nil:
            guard let kid = jws.header.kid else {
                return .failure(UserTokenRefusal(.unknownKey, "the token's header has no kid naming one of the tenant's keys"))
            }
            return .success(Signed(jws: jws, key: .published(kid: kid)))
        default:
            return .failure(
                UserTokenRefusal(.algorithm, "the token's alg is not one this tenant's keys sign with (\(algorithms))"))
        }
    }

    /// Checks the signature (with `keySet` for a published key) and the claims; remembers a token that passes.
    private func finish(
        _ token: String, _ signed: Signed, _ keySet: JSONWebKeySet?, appUserID: String, nowSeconds: Int64
    ) -> Result<Int64, UserTokenRefusal> {
        let jws = signed.jws
        do throws(JOSEError) {
            switch signed.key {
            case .secrets:
                try jws.verifyHS256(secrets: secrets)
            case .published(let kid):
                if jws.header.alg == "ES256", let key = keySet?.es256Keys[kid] {
                    try jws.verifyES256(by: key)
                } else if jws.header.alg == "RS256", let key = keySet?.keys[kid] {
                    try jws.verifyRS256(by: key)
                } else {
                    return .failure(
                        UserTokenRefusal(.unknownKey, "no \(jws.header.alg ?? "") key of the tenant has the token's kid"))
                }
            }
        } catch {
            return .failure(UserTokenRefusal(.signature, error.message))
        }
        let read: JSONWebTokenClaims
        do {
            read = try JSONWebTokenClaims(payload: jws.payload)
        } catch {
            return .failure(UserTokenRefusal(.malformed, error.message))
        }
        let outcome = claims.check(read, appUserID: appUserID, nowSeconds: nowSeconds)
        if case .success = outcome { remember(token, read, nowSeconds: nowSeconds) }
        return outcome
    }

    /// The algorithms the tenant's keys sign with, for messages.
    private var algorithms: String {
        var names: [String] = []
        if !secrets.isEmpty { names.append("HS256") }
        if keys != nil { names += ["ES256", "RS256"] }
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
