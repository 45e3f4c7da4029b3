public import Foundation
import Encodings

/// The keys a tenant signs status with, pinned in the app: the JWKS the server publishes at
/// `/.well-known/entitlementd/TENANT/jwks.json` (or the tenants file's keys), shipped with the app so that a proxy or
/// a tampered device cannot substitute its own. Only ES256 P-256 keys with a `kid` are kept. A status counts only
/// when signed for `tenant`: an operator may sign for several tenants with one key, and another tenant's user of the
/// same ID must not unlock this app.
public struct StatusKeys: Sendable {
    let keys: [String: ES256PublicKey]
    /// The tenant ID the statuses must be signed for (their `tenant` claim).
    public let tenant: String

    /// The kids pinned.
    public var keyIDs: Set<String> { Set(keys.keys) }

    /// Reads a JWKS document of `tenant`'s keys; throws when it is not one or holds no usable key.
    public init(tenant: String, jwks: Data) throws {
        guard !tenant.isEmpty else {
            throw EntitlementsError(code: .invalidArgument, message: "The status keys need the tenant ID they sign for.")
        }
        self.tenant = tenant
        guard let document = try? JSONReader.read(JSONValue.self, from: Array(jwks)),
            case .array(let entries)? = document["keys"]
        else {
            throw EntitlementsError(code: .invalidArgument, message: "The status keys are not a JWKS ({\"keys\": [...]}).")
        }
        var keys: [String: ES256PublicKey] = [:]
        for entry in entries where entry["kty"]?.string == "EC" && entry["crv"]?.string == "P-256" {
            guard let kid = entry["kid"]?.string, !kid.isEmpty,
                let x = entry["x"]?.string.flatMap({ Base64.decode($0, alphabet: .url, padding: .forbidden) }),
                let y = entry["y"]?.string.flatMap({ Base64.decode($0, alphabet: .url, padding: .forbidden) }),
                x.count == 32, y.count == 32, let key = ES256PublicKey(x963Representation: [0x04] + x + y)
            else {
                throw EntitlementsError(
                    code: .invalidArgument, message: "A P-256 key of the status keys lacks a kid or a valid x and y.")
            }
            keys[kid] = key
        }
        guard !keys.isEmpty else {
            throw EntitlementsError(code: .invalidArgument, message: "The status keys hold no ES256 (P-256) key.")
        }
        self.keys = keys
    }

    /// The claims of `token` when one of these keys signed it for this tenant and `appUserID` (by its canonical ID or
    /// the alias it was asked by), and `now` is before its `exp`; otherwise why not.
    func verify(_ token: String, for appUserID: String, at now: Date) -> Result<SignedStatusClaims, StatusRejection> {
        verify(token).flatMap { claims in
            guard claims.tenant == tenant else { return .failure(.otherTenant(claims.tenant)) }
            guard claims.names(appUserID) else { return .failure(.otherUser) }
            guard now < claims.expiresAt else { return .failure(.expired) }
            return .success(claims)
        }
    }

    /// The claims of `token` when one of these keys signed it; otherwise why not.
    func verify(_ token: String) -> Result<SignedStatusClaims, StatusRejection> {
        guard !token.isEmpty else { return .failure(.unsigned) }
        guard let jws = CompactToken(token), jws.header["alg"]?.string == "ES256", let kid = jws.header["kid"]?.string
        else { return .failure(.malformed) }
        guard let key = keys[kid] else { return .failure(.unknownKey(kid)) }
        guard key.isValidSignature(jws.signature, for: jws.signingInput) else { return .failure(.badSignature) }
        guard let claims = SignedStatusClaims(payload: jws.payload) else { return .failure(.malformed) }
        return .success(claims)
    }
}

/// Why a signed status was not taken.
enum StatusRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server sent no signature, though the app pins keys.
    case unsigned
    case malformed
    /// Signed with a key the app does not pin (forged, or a rotation the app has not shipped yet).
    case unknownKey(String)
    /// The signature does not match: the status was altered.
    case badSignature
    /// Signed for another tenant (one sharing the signing key).
    case otherTenant(String)
    /// For another user than the one the SDK speaks for.
    case otherUser
    /// Past its `exp`.
    case expired

    var description: String {
        switch self {
        case .unsigned: "it carries no signed_status"
        case .malformed: "its signed_status is not a signed status"
        case .unknownKey(let kid): "it is signed with key \(kid), which the app does not pin"
        case .badSignature: "its signature does not verify (forged or altered)"
        case .otherTenant(let tenant): "it is signed for tenant \(tenant), not this app's"
        case .otherUser: "it is signed for another user"
        case .expired: "its offline validity has passed"
        }
    }
}
