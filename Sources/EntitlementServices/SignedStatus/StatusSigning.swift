import Crypto
import EntitlementDomain
import EntitlementsProto
import JOSE

/// Signs customer status with the tenant's key (`signed_status`): a compact JWS of ``StatusClaims`` an app verifies
/// with the tenant's published keys before it trusts or caches the status.
enum StatusSigning {
    /// How long SyncStatus serves a cached customer's signed status again before signing anew: one ECDSA signature per
    /// customer a minute, however often the app asks. The claims' `iat` says when it was signed.
    static let reuseSeconds: Int64 = 60

    /// `state` signed at `now` with the first of `settings`' keys, for a caller that asked for `appUserID`.
    static func sign(_ state: CustomerState, askedAs appUserID: String, tenantID: String, settings: StatusSigningSettings, at now: UnixTime)
        throws(DomainError) -> SignedStatus
    {
        guard let key = settings.signingKey else { throw .internalError("signed_status lists no key") }
        let issuedAt = now.seconds
        let payload = StatusClaims.payload(
            state, tenantID: tenantID, askedAs: appUserID, issuedAt: issuedAt,
            expiresAt: issuedAt + settings.offlineValiditySeconds)
        // The kid's characters need no JSON escaping (StatusSigningSettings.checkKid).
        let header = Array(#"{"alg":"ES256","kid":"\#(key.kid)","typ":"JWT"}"#.utf8)
        do {
            let token = try JWSSigning.sign(headerJSON: header, payload: payload, key: key.privateKey)
            return SignedStatus(
                token: token, key: key, validitySeconds: settings.offlineValiditySeconds, issuedAt: issuedAt)
        } catch {
            throw .internalError("signing the status failed: \(error.message)")
        }
    }

    /// The signed status of a cached customer: the one `memo` keeps while it is younger than ``reuseSeconds`` and made
    /// as the tenant signs now (the same key, the same validity), else a new one. Signed anew for a caller that asked by an alias (its claims name it).
    static func token(
        _ state: CustomerState, memo: StateMemo?, askedAs appUserID: String, tenantID: String,
        settings: StatusSigningSettings, at now: UnixTime
    ) throws(DomainError) -> String {
        func make() throws(DomainError) -> SignedStatus {
            try sign(state, askedAs: appUserID, tenantID: tenantID, settings: settings, at: now)
        }
        guard let memo, appUserID == state.appUserID else { return try make().token }
        let seconds = now.seconds
        let key = settings.signingKey
        return try memo.signedStatus(
            reusable: { kept in
                (0..<reuseSeconds).contains(seconds - kept.issuedAt) && kept.validitySeconds == settings.offlineValiditySeconds
                    && kept.key == key
            }, orMake: make)
    }
}

extension CustomerStatus {
    /// Sets `signed_status` when `tenant` signs status: `state` (this status's source) signed at `now` for a caller
    /// that asked for `appUserID`.
    mutating func sign(_ state: CustomerState, askedAs appUserID: String, tenant: Tenant, at now: UnixTime)
        throws(DomainError)
    {
        guard let settings = tenant.signedStatus else { return }
        signedStatus = try StatusSigning.sign(state, askedAs: appUserID, tenantID: tenant.id, settings: settings, at: now).token
    }
}

extension TenantRegistry {
    /// The public keys tenant `id` signs status with, as a JWKS document (RFC 7517), every listed key (the signing
    /// one and those published for rotation); nil when no such tenant signs status.
    public func statusKeySet(tenantID id: String) -> [UInt8]? {
        guard let settings = directory.tenant(id: id)?.signedStatus else { return nil }
        var keys: [String: P256.PublicKey] = [:]
        for key in settings.keys { keys[key.kid] = key.privateKey.publicKey }
        return JSONWebKeySet(keys: [:], es256Keys: keys).jsonRepresentation
    }
}
